import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// Inboxes: fired local notifications held for a device until it acknowledges them.
extension PostgresStore {
    /// Holds a batch of items in their devices' inboxes in two statements, however many there
    /// are: the devices' rows locked, then one statement that draws the ids and answers each
    /// item's id (its new one, or the one it was held under before). A firing's item is its
    /// fire-log row, which takes the id, and its outcome (``CompletedDelivery/heldInInbox(_:)``)
    /// when the inbox is where it ends (``InboxHold``);
    /// an item without a firing (a presentation) gets a row of its own, pending until
    /// `recordDeliveries` stores its outcome there.
    ///
    /// The devices' rows are locked as a wake and an acknowledgement lock them (`FOR NO KEY
    /// UPDATE`, in key order so two batches cannot deadlock), and the ids are drawn under that
    /// lock: a device's ids commit in the order they were drawn, so a wake or a stream that sees
    /// id N has already seen every lower id of that device (docs/hand-over-order.md). The second
    /// statement starts after the lock is held, so its snapshot sees every item another holder
    /// of the lock committed (one statement would read from a snapshot taken before the wait).
    ///
    /// Fenced like every write of a lease holder: a firing is held only while it is leased to
    /// this node. A node that stalled past its lease, whose firings another node took over,
    /// holds nothing again (its id comes back nil).
    public func holdInInbox(_ items: [InboxItem], _ hold: InboxHold) async throws -> [Int64?] {
        guard !items.isEmpty else { return [] }
        // Only an item without a firing needs its content here: a firing's row has it.
        let contents = try items.map { item in
            item.logID == nil ? try item.storedContent ?? Self.json(item.content) : ""
        }
        let appIDs = items.map(\.occurrence.appID)
        let deviceIDs = items.map(\.occurrence.deviceID)
        // Arrays cannot hold NULLs here: -1 stands for an item with no firing (presented now).
        let logIDs = items.map { $0.logID ?? -1 }
        let recordsHeld = hold == .final
        return try await transaction { connection in
            try await connection.run("""
                SELECT 1 FROM device WHERE (app_id, id) IN (SELECT * FROM unnest(\(appIDs)::text[], \(deviceIDs)::text[]))
                ORDER BY app_id, id
                FOR NO KEY UPDATE
                """, logger: self.logger)
            // Held: items whose device still exists (one deleted meanwhile has nobody to hold
            // anything for). A firing held before (handed over again) keeps its id. The firings
            // are found by key alone (`= ANY`): on a fire log without statistics PostgreSQL
            // otherwise read every pending firing of this node per batch.
            let rows = try await connection.rows("""
                WITH item AS MATERIALIZED (
                    SELECT u.* FROM unnest(\(appIDs)::text[], \(deviceIDs)::text[], \(items.map(\.occurrence.id))::text[],
                        \(items.map(\.occurrence.notificationID))::text[],
                        \(items.map(\.occurrence.scheduledFor.millisecondsSince1970))::bigint[],
                        \(items.map(\.firedAt.millisecondsSince1970))::bigint[], \(items.map(\.occurrence.late))::boolean[],
                        \(items.map { Int64($0.occurrence.missed) })::bigint[], \(contents)::text[], \(logIDs)::bigint[])
                        WITH ORDINALITY AS u(a, d, o, n, s, f, l, m, c, x, i)
                    WHERE EXISTS (SELECT 1 FROM device WHERE device.app_id = u.a AND device.id = u.d)
                ), firing AS MATERIALIZED (
                    SELECT key, inbox_seq FROM delivery
                    WHERE key = ANY(\(logIDs)::bigint[]) AND claimed_by = \(self.nodeID)
                        AND (inbox_seq IS NOT NULL OR outcome = 'pending')
                ), held AS (
                    UPDATE delivery l SET inbox_seq = nextval('hand_over_sequence'),
                        channel = CASE WHEN \(recordsHeld) THEN \(CompletedDelivery.heldChannel) ELSE l.channel END,
                        outcome = CASE WHEN \(recordsHeld) THEN \(CompletedDelivery.heldOutcome) ELSE l.outcome END
                    FROM item, firing
                    WHERE l.key = ANY(\(logIDs)::bigint[]) AND l.key = item.x AND firing.key = item.x
                        AND firing.inbox_seq IS NULL
                    RETURNING l.key, l.inbox_seq
                ), presented AS (
                    INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at,
                        late, missed, channel, outcome, content, claimed_by, inbox_seq)
                    SELECT o, a, d, n, s, f, l, m, 'pending', 'pending', c, \(self.nodeID), nextval('hand_over_sequence')
                    FROM (SELECT * FROM item WHERE x = -1 ORDER BY i) AS unlogged
                    RETURNING key, inbox_seq
                )
                SELECT item.i, coalesce(held.inbox_seq, firing.inbox_seq)
                FROM item JOIN firing ON firing.key = item.x LEFT JOIN held ON held.key = item.x
                UNION ALL
                SELECT item.i, presented.inbox_seq
                FROM (SELECT i, row_number() OVER (ORDER BY i) AS r FROM item WHERE x = -1) AS item
                    JOIN (SELECT inbox_seq, row_number() OVER (ORDER BY inbox_seq) AS r FROM presented) AS presented
                    ON presented.r = item.r
                """, logger: self.logger)
            var sequences = [Int64?](repeating: nil, count: items.count)
            for row in rows {
                let index = Int(try row.value(0, as: Int64.self)) - 1
                guard sequences.indices.contains(index) else { continue }
                sequences[index] = try row.value(1, as: Int64?.self)
            }
            return sequences
        }
    }

    // MARK: Rows

    /// A fire-log row in its device's inbox: held and not acknowledged. The `delivery_inbox`
    /// index holds these rows; a read uses it only if its conditions imply this one, so every
    /// read of an inbox says it with this text.
    static let inInbox = "inbox_seq IS NOT NULL AND NOT inbox_acknowledged"
    /// A fire-log row out of its device's inbox (never held, or acknowledged): the rows the
    /// `delivery_history` index holds. With ``inInbox``, all of a device's rows.
    static let outOfInbox = "inbox_seq IS NULL OR inbox_acknowledged"

    /// The columns of an inbox item, as ``inboxItem(from:appID:deviceID:)`` reads them.
    static let inboxColumns = "occurrence_id, notification_id, scheduled_for, fired_at, late, missed, content, inbox_seq"

    /// The inbox as it stands: items stay until acknowledged, with their sequence ids.
    func unacknowledgedInbox(_ connection: PostgresConnection, appID: String, deviceID: String) async throws -> [InboxItem] {
        try await connection.rows("""
            SELECT \(unescaped: Self.inboxColumns) FROM delivery
            WHERE app_id = \(appID) AND device_id = \(deviceID) AND \(unescaped: Self.inInbox)
            ORDER BY inbox_seq
            """, logger: self.logger).map { row in try Self.inboxItem(from: row, appID: appID, deviceID: deviceID) }
    }

    /// An inbox item from ``inboxColumns``, starting at column `offset`.
    static func inboxItem(from row: PostgresRandomAccessRow, offset: Int = 0, appID: String,
                          deviceID: String) throws -> InboxItem {
        let occurrenceID = try row.value(offset, as: String.self)
        let occurrence = Occurrence(appID: appID, deviceID: deviceID, notificationID: try row.value(offset + 1),
                                    index: Occurrence.index(fromID: occurrenceID),
                                    scheduledFor: Date(millisecondsSince1970: try row.value(offset + 2)),
                                    late: try row.value(offset + 4), missed: try row.value(offset + 5))
        return InboxItem(occurrence: occurrence,
                         content: try JSONDecoder().decode(NotificationContent.self,
                                                           from: Data(try row.value(offset + 6, as: String.self).utf8)),
                         firedAt: Date(millisecondsSince1970: try row.value(offset + 3)), sequence: try row.value(offset + 7))
    }
}
