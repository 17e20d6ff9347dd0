import Foundation
import GRDB
import HeraldCore

/// Inboxes: fired local notifications held for a device until it acknowledges them.
extension SQLiteStore {
    public func holdInInbox(_ items: [InboxItem], _ hold: InboxHold) async throws -> [Int64?] {
        guard !items.isEmpty else { return [] }
        // Only an item without a fire-log row needs its content here: a firing's row has it.
        let unloggedContents = try items.map { item in
            item.logID == nil ? try item.storedContent ?? String(decoding: Self.encoder.encode(item.content), as: UTF8.self) : nil
        }
        return try await connections.write { db in
            // A device deleted meanwhile has nobody to hold anything for: one read for the batch.
            var present: Set<DeviceKey> = []
            try Self.devicesPresent.execute(Set(items.map { DeviceKey($0.occurrence) }).map { key in
                [key.appID.databaseValue, key.deviceID.databaseValue]
            }, in: db) { row in present.insert(DeviceKey(appID: row[0], deviceID: row[1])) }
            var sequences = [Int64?](repeating: nil, count: items.count)
            var positions: [Int64: Int] = [:]
            var unlogged: [Int] = []
            for (index, item) in items.enumerated() where present.contains(DeviceKey(item.occurrence)) {
                if let logID = item.logID { positions[logID] = index } else { unlogged.append(index) }
            }
            // Ids in the items' order, from the series backlog hand-overs share: a device's
            // cursor only ever moves past what it was handed.
            var next = try Self.reserveHandOverSequences(positions.count + unlogged.count, db)
            var firings: [[DatabaseValue]] = []
            firings.reserveCapacity(positions.count)
            for (index, item) in items.enumerated() {
                guard let logID = item.logID, positions[logID] == index else { continue }
                firings.append([logID.databaseValue, next.databaseValue])
                next += 1
            }
            try Self.inboxHold(hold).execute(firings, in: db) { row in
                let logID: Int64 = row[0]
                if let index = positions.removeValue(forKey: logID) { sequences[index] = row[1] }
            }
            if !positions.isEmpty {
                // Held before (a firing handed over again): the same item, the same id. A row that
                // is gone holds nothing.
                try Self.inboxSequences.execute(positions.keys.map { [$0.databaseValue] }, in: db) { row in
                    let logID: Int64 = row[0]
                    if let index = positions[logID] { sequences[index] = row[1] }
                }
            }
            // A presentation (delivered outside the fire log) gets its fire-log row here, pending
            // until `recordDeliveries` stores its outcome in it.
            for index in unlogged {
                let occurrence = items[index].occurrence
                try db.cachedStatement(sql: """
                    INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                        missed, channel, outcome, content, inbox_seq)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 'pending', ?, ?)
                    """)
                        .execute(arguments: [occurrence.id, occurrence.appID, occurrence.deviceID, occurrence.notificationID,
                                     occurrence.scheduledFor.millisecondsSince1970,
                                     items[index].firedAt.millisecondsSince1970, occurrence.late, occurrence.missed,
                                     unloggedContents[index], next])
                sequences[index] = next
                next += 1
            }
            return sequences
        }
    }

    /// An (app, device) pair, as a set member.
    struct DeviceKey: Hashable {
        var appID: String
        var deviceID: String

        init(appID: String, deviceID: String) {
            (self.appID, self.deviceID) = (appID, deviceID)
        }

        init(_ occurrence: Occurrence) {
            self.init(appID: occurrence.appID, deviceID: occurrence.deviceID)
        }
    }

    /// The devices among (app, device) rows that exist.
    static let devicesPresent = SQLiteMultiRow(sql: { values in
        "SELECT app_id, id FROM device WHERE (app_id, id) IN (VALUES \(values))"
    }, columns: 2)

    /// Firings put in their device's inbox: (fire-log key, hand-over id) rows. A firing held
    /// before keeps its id (and stays acknowledged if it was), so it is not handed over twice.
    /// The outcome is written with it (``CompletedDelivery/heldInInbox(_:)``) when the inbox is
    /// where the firing ends: its row is written once, and the dispatcher storing the same
    /// outcome later writes nothing.
    static func inboxHold(_ hold: InboxHold) -> SQLiteMultiRow {
        switch hold {
        case .final: inboxHoldFinal
        case .beforeStreaming: inboxHoldBeforeStreaming
        }
    }

    private static let inboxHoldFinal = inboxHoldStatement(alsoSetting: """
        , channel = '\(CompletedDelivery.heldChannel)', outcome = '\(CompletedDelivery.heldOutcome)'
        """)
    /// A live stream is told next: the id only, the outcome left pending.
    private static let inboxHoldBeforeStreaming = inboxHoldStatement(alsoSetting: "")

    private static func inboxHoldStatement(alsoSetting outcome: String) -> SQLiteMultiRow {
        SQLiteMultiRow(sql: { values in
            """
            UPDATE delivery SET inbox_seq = v.column2\(outcome)
            FROM (VALUES \(values)) AS v WHERE delivery.key = v.column1 AND delivery.inbox_seq IS NULL
            RETURNING delivery.key, delivery.inbox_seq
            """
        }, columns: 2)
    }

    /// The hand-over ids of firings already held: (fire-log key) rows.
    static let inboxSequences = SQLiteMultiRow(sql: { values in
        "SELECT key, inbox_seq FROM delivery WHERE key IN (VALUES \(values)) AND inbox_seq IS NOT NULL"
    }, columns: 1)

    // MARK: Rows

    static func existingDevice(_ db: Database, appID: String, deviceID: String) throws -> Device {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(deviceColumns) FROM device WHERE app_id = ? AND id = ?"),
                                         arguments: [appID, deviceID]) else {
            throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        }
        return try device(from: row)
    }

    /// Takes `count` ids of the hand-over series and returns the first; the caller uses the
    /// `count` from there. Inside the caller's write transaction, so ids follow commit order.
    static func reserveHandOverSequences(_ count: Int, _ db: Database) throws -> Int64 {
        guard count > 0 else { return 0 }
        let last = try Int64.fetchOne(db.cachedStatement(sql: """
            UPDATE hand_over_sequence SET value = value + ? WHERE id = 1 RETURNING value
            """), arguments: [count]) ?? 0
        return last - Int64(count) + 1
    }

    /// The inbox as it stands (or only its items above `after`): items stay until acknowledged,
    /// so a client that dropped before reading them gets them again, with the same sequence ids.
    static func unacknowledgedInbox(_ db: Database, appID: String, deviceID: String, after: Int64 = -1) throws -> [InboxItem] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT occurrence_id, notification_id, scheduled_for, fired_at, late, missed, content, inbox_seq FROM delivery
            WHERE app_id = ? AND device_id = ? AND inbox_seq IS NOT NULL AND inbox_seq > ? AND inbox_acknowledged = 0
            ORDER BY inbox_seq
            """), arguments: [appID, deviceID, after])
        return try rows.map { row in
            let occurrenceID: String = row[0]
            let contentText: String = row[6]
            let occurrence = Occurrence(appID: appID, deviceID: deviceID, notificationID: row[1],
                                        index: Occurrence.index(fromID: occurrenceID),
                                        scheduledFor: Date(millisecondsSince1970: row[2]), late: row[4], missed: row[5])
            return InboxItem(occurrence: occurrence,
                             content: try JSONDecoder().decode(NotificationContent.self, from: Data(contentText.utf8)),
                             firedAt: Date(millisecondsSince1970: row[3]), sequence: row[7])
        }
    }
}
