import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// Lifecycle state, coalesced event queues and inboxes. Every change locks the device row first,
/// so a wake on one node and events reported through another apply one after the other, and a
/// backlog is never handed over twice.
extension PostgresStore {
    public func setState(appID: String, deviceID: String, state: LifecycleState, drain: Bool,
                         catalog: EventCatalog, acknowledging upTo: Int64?) async throws -> WakeResult {
        try await transaction { connection in
            var device = try await self.lockedDevice(connection, appID: appID, deviceID: deviceID)
            if let upTo { try await self.acknowledge(connection, appID: appID, deviceID: deviceID, upTo: upTo) }
            guard device.state.canMove(to: state) else { throw HeraldError.invalidTransition(from: device.state, to: state) }
            let woke = device.state.wakes(movingTo: state, drain: drain)
            device.state = state
            try await connection.run("UPDATE device SET state = \(state.rawValue) WHERE app_id = \(appID) AND id = \(deviceID)",
                                     logger: self.logger)
            guard woke else { return WakeResult(device: device, woke: false) }
            var backlog = try await self.backlog(connection, appID: appID, deviceID: deviceID)
            let sequence = try await connection.row("SELECT nextval('hand_over_sequence')", logger: self.logger)!
                .value(0, as: Int64.self)
            let handed = backlog.handOver(catalog: catalog, sequence: sequence)
            try await self.saveBacklog(connection, backlog, appID: appID, deviceID: deviceID)
            let inbox = try await self.unacknowledgedInbox(connection, appID: appID, deviceID: deviceID)
            return WakeResult(device: device, woke: true, notifications: handed.batch, backlogSequence: handed.sequence,
                              inbox: inbox)
        }
    }

    public func ingestEvents(appID: String, deviceID: String, events: [SystemEvent], catalog: EventCatalog,
                             connected: Bool) async throws -> EventIngestion {
        try await transaction { connection in
            let device = try await self.lockedDevice(connection, appID: appID, deviceID: deviceID)
            var backlog = try await self.backlog(connection, appID: appID, deviceID: deviceID)
            guard device.state.isAwake && connected else {
                for event in events { try backlog.ingest(event, catalog: catalog) }
                try await self.saveBacklog(connection, backlog, appID: appID, deviceID: deviceID)
                return EventIngestion(device: device, live: [], queued: events.count, backlog: backlog.pendingCount)
            }
            // Handed over now, under an id drawn under the device's lock like an inbox item's.
            let live = try events.map { event throws(HeraldError) in try catalog.validate(event) }
            let sequence = try await connection.row("SELECT nextval('hand_over_sequence')", logger: self.logger)!
                .value(0, as: Int64.self)
            backlog.handOverLive(live, catalog: catalog, sequence: sequence)
            var handOvers = try await self.liveHandOvers(connection, appID: appID, deviceID: deviceID)
            handOvers.append(live, sequence: sequence)
            try await self.saveBacklog(connection, backlog, appID: appID, deviceID: deviceID)
            try await self.saveLiveHandOvers(connection, handOvers, appID: appID, deviceID: deviceID)
            // What waits besides them: they count as pending only once a wake hands them over again.
            return EventIngestion(device: device, live: live, liveSequence: sequence, queued: 0,
                                  backlog: backlog.queue.pendingCount)
        }
    }

    public func eventBacklog(appID: String, deviceID: String, catalog: EventCatalog) async throws -> [CoalescedNotification] {
        try await read { connection in
            guard try await connection.row("SELECT 1 FROM device WHERE app_id = \(appID) AND id = \(deviceID)",
                                           logger: self.logger) != nil else {
                throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
            }
            return try await self.backlog(connection, appID: appID, deviceID: deviceID).preview(catalog: catalog)
        }
    }

    /// Holds a batch of items in their devices' inboxes in two statements, however many there
    /// are: the devices' rows locked, then one statement that draws the ids and answers each
    /// item's id (its new one, or the one it was held under before). A firing's item is its
    /// fire-log row, which takes the id and its outcome (``CompletedDelivery/heldInInbox(_:)``);
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
    public func holdInInbox(_ items: [InboxItem]) async throws -> [Int64?] {
        guard !items.isEmpty else { return [] }
        // Only an item without a firing needs its content here: a firing's row has it.
        let contents = try items.map { item in
            item.logID == nil ? try item.storedContent ?? Self.json(item.content) : ""
        }
        let appIDs = items.map(\.occurrence.appID)
        let deviceIDs = items.map(\.occurrence.deviceID)
        // Arrays cannot hold NULLs here: -1 stands for an item with no firing (presented now).
        let logIDs = items.map { $0.logID ?? -1 }
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
                        channel = \(CompletedDelivery.heldChannel), outcome = \(CompletedDelivery.heldOutcome)
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

    public func recordWakePush(appID: String, deviceID: String, now: Date, perHour: Int) async throws -> Bool {
        try await transaction { connection in
            _ = try await self.lockedDevice(connection, appID: appID, deviceID: deviceID)
            let text = try await connection.row("""
                SELECT wake_pushes FROM device_events WHERE app_id = \(appID) AND device_id = \(deviceID)
                """, logger: self.logger)?.value(0, as: String.self) ?? "[]"
            let hourAgo = now.millisecondsSince1970 - 3_600_000
            var sent = ((try? JSONDecoder().decode([Int64].self, from: Data(text.utf8))) ?? []).filter { $0 > hourAgo }
            guard sent.count < perHour else { return false }
            sent.append(now.millisecondsSince1970)
            let updated = try Self.json(sent)
            let emptyQueue = try Self.json(DeviceEventQueue())
            try await connection.run("""
                INSERT INTO device_events (app_id, device_id, queue, wake_pushes)
                VALUES (\(appID), \(deviceID), \(emptyQueue), \(updated))
                ON CONFLICT (app_id, device_id) DO UPDATE SET wake_pushes = excluded.wake_pushes
                """, logger: self.logger)
            return true
        }
    }

    public func acknowledge(appID: String, deviceID: String, upTo: Int64) async throws -> Acknowledgement {
        try await transaction { connection in
            _ = try await self.lockedDevice(connection, appID: appID, deviceID: deviceID)
            return try await self.acknowledge(connection, appID: appID, deviceID: deviceID, upTo: upTo)
        }
    }

    // MARK: Rows

    /// The device, its row locked until the transaction ends; `deviceNotFound` if there is none.
    func lockedDevice(_ connection: PostgresConnection, appID: String, deviceID: String) async throws -> Device {
        guard let row = try await connection.row("""
            SELECT \(unescaped: Self.deviceColumns) FROM device d WHERE d.app_id = \(appID) AND d.id = \(deviceID)
            FOR NO KEY UPDATE
            """, logger: self.logger) else {
            throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        }
        return try Self.device(from: row)
    }

    func backlog(_ connection: PostgresConnection, appID: String, deviceID: String) async throws -> AcknowledgedBacklog {
        guard let row = try await connection.row("""
            SELECT queue, unacknowledged, handed_seq FROM device_events WHERE app_id = \(appID) AND device_id = \(deviceID)
            """, logger: self.logger) else { return AcknowledgedBacklog() }
        return try AcknowledgedBacklog(storedQueue: try row.value(0, as: String?.self),
                                       unacknowledged: try row.value(1, as: String?.self),
                                       handedSequence: try row.value(2, as: Int64?.self))
    }

    func saveBacklog(_ connection: PostgresConnection, _ backlog: AcknowledgedBacklog, appID: String,
                     deviceID: String) async throws {
        let queue = try Self.json(backlog.queue)
        let unacknowledged = try backlog.unacknowledged.map(Self.json)
        try await connection.run("""
            INSERT INTO device_events (app_id, device_id, queue, unacknowledged, handed_seq)
            VALUES (\(appID), \(deviceID), \(queue), \(unacknowledged), \(backlog.handedSequence))
            ON CONFLICT (app_id, device_id) DO UPDATE SET queue = excluded.queue,
                unacknowledged = excluded.unacknowledged, handed_seq = excluded.handed_seq
            """, logger: self.logger)
    }

    /// The live hand-overs the device has not acknowledged.
    func liveHandOvers(_ connection: PostgresConnection, appID: String, deviceID: String) async throws -> LiveHandOvers {
        guard let text = try await connection.row("""
            SELECT live_events FROM device_events WHERE app_id = \(appID) AND device_id = \(deviceID)
            """, logger: self.logger)?.value(0, as: String?.self) else { return LiveHandOvers() }
        return try JSONDecoder().decode(LiveHandOvers.self, from: Data(text.utf8))
    }

    /// Stores the live hand-overs; the device's row in `device_events` exists (``saveBacklog``).
    func saveLiveHandOvers(_ connection: PostgresConnection, _ handOvers: LiveHandOvers, appID: String,
                           deviceID: String) async throws {
        let text = handOvers == LiveHandOvers() ? nil : try Self.json(handOvers)
        try await connection.run("""
            UPDATE device_events SET live_events = \(text) WHERE app_id = \(appID) AND device_id = \(deviceID)
            """, logger: self.logger)
    }

    /// Acknowledges the inbox items up to and including `upTo`, and the backlog hand-over if its
    /// id is in range. An item is its firing's fire-log row, marked acknowledged: a retry of that
    /// firing finds it held and does not hold it again.
    @discardableResult
    func acknowledge(_ connection: PostgresConnection, appID: String, deviceID: String,
                     upTo: Int64) async throws -> Acknowledgement {
        let inboxItems = try await connection.count("""
            UPDATE delivery SET inbox_acknowledged = true
            WHERE app_id = \(appID) AND device_id = \(deviceID) AND inbox_seq IS NOT NULL AND inbox_seq <= \(upTo)
                AND NOT inbox_acknowledged
            RETURNING 1
            """, logger: self.logger)
        var backlog = try await self.backlog(connection, appID: appID, deviceID: deviceID)
        let acknowledged = backlog.acknowledge(upTo: upTo)
        if acknowledged { try await saveBacklog(connection, backlog, appID: appID, deviceID: deviceID) }
        var handOvers = try await liveHandOvers(connection, appID: appID, deviceID: deviceID)
        let before = handOvers
        handOvers.acknowledge(upTo: upTo)
        if handOvers != before { try await saveLiveHandOvers(connection, handOvers, appID: appID, deviceID: deviceID) }
        return Acknowledgement(inboxItems: inboxItems, backlog: acknowledged)
    }

    public func handedOver(appID: String, deviceID: String, after: Int64) async throws -> HandedOver {
        try await transaction { connection in
            // One snapshot for both reads: an id committed between them could otherwise be seen
            // in one and missed in the other, and a stream would write past it.
            try await connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: self.logger)
            let inbox = try await self.unacknowledgedInbox(connection, appID: appID, deviceID: deviceID, after: after)
            let live = try await self.liveHandOvers(connection, appID: appID, deviceID: deviceID).after(after)
            return HandedOver(inbox: inbox, live: live.batches, missedLive: live.missed)
        }
    }

    /// The inbox as it stands (or only its items above `after`): items stay until acknowledged,
    /// with their sequence ids.
    func unacknowledgedInbox(_ connection: PostgresConnection, appID: String, deviceID: String,
                             after: Int64 = -1) async throws -> [InboxItem] {
        try await connection.rows("""
            SELECT occurrence_id, notification_id, scheduled_for, fired_at, late, missed, content, inbox_seq FROM delivery
            WHERE app_id = \(appID) AND device_id = \(deviceID) AND inbox_seq IS NOT NULL AND inbox_seq > \(after)
                AND NOT inbox_acknowledged
            ORDER BY inbox_seq
            """, logger: self.logger).map { row in
            let occurrenceID = try row.value(0, as: String.self)
            let occurrence = Occurrence(appID: appID, deviceID: deviceID, notificationID: try row.value(1),
                                        index: Occurrence.index(fromID: occurrenceID),
                                        scheduledFor: Date(millisecondsSince1970: try row.value(2)),
                                        late: try row.value(4), missed: try row.value(5))
            return InboxItem(occurrence: occurrence,
                             content: try JSONDecoder().decode(NotificationContent.self,
                                                               from: Data(try row.value(6, as: String.self).utf8)),
                             firedAt: Date(millisecondsSince1970: try row.value(3)), sequence: try row.value(7))
        }
    }
}
