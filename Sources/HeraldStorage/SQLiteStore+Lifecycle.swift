import Foundation
import GRDB
import HeraldCore

/// Lifecycle state, coalesced event queues and inboxes: each change in one transaction, so a
/// restart loses nothing queued and a wake never delivers the same backlog twice.
extension SQLiteStore {
    public func setState(appID: String, deviceID: String, state: LifecycleState, drain: Bool,
                         catalog: EventCatalog, acknowledging upTo: Int64?) async throws -> WakeResult {
        try await pool.write { db in
            var device = try Self.existingDevice(db, appID: appID, deviceID: deviceID)
            if let upTo { try Self.acknowledge(db, appID: appID, deviceID: deviceID, upTo: upTo) }
            guard device.state.canMove(to: state) else {
                throw HeraldError.invalidTransition(from: device.state, to: state)
            }
            let woke = device.state.wakes(movingTo: state, drain: drain)
            device.state = state
            try db.execute(sql: "UPDATE device SET state = ? WHERE app_id = ? AND id = ?",
                           arguments: [state.rawValue, appID, deviceID])
            guard woke else { return WakeResult(device: device, woke: false) }
            var backlog = try Self.backlog(db, appID: appID, deviceID: deviceID)
            let handed = try backlog.handOver(catalog: catalog, sequence: try Self.nextHandOverSequence(db))
            try Self.saveBacklog(db, backlog, appID: appID, deviceID: deviceID)
            let inbox = try Self.unacknowledgedInbox(db, appID: appID, deviceID: deviceID)
            return WakeResult(device: device, woke: true, notifications: handed.batch, backlogSequence: handed.sequence,
                              inbox: inbox)
        }
    }

    public func ingestEvents(appID: String, deviceID: String, events: [SystemEvent], catalog: EventCatalog,
                             connected: Bool) async throws -> EventIngestion {
        try await pool.write { db in
            let device = try Self.existingDevice(db, appID: appID, deviceID: deviceID)
            var backlog = try Self.backlog(db, appID: appID, deviceID: deviceID)
            guard device.state.isAwake && connected else {
                for event in events { try backlog.ingest(event, catalog: catalog) }
                try Self.saveBacklog(db, backlog, appID: appID, deviceID: deviceID)
                return EventIngestion(device: device, live: [], queued: events.count, backlog: backlog.pendingCount)
            }
            let live = try events.map { event throws(HeraldError) in try catalog.validate(event) }
            let sequence = try Self.nextHandOverSequence(db)
            backlog.handOverLive(live, catalog: catalog, sequence: sequence)
            var handOvers = try Self.liveHandOvers(db, appID: appID, deviceID: deviceID)
            handOvers.append(live, sequence: sequence)
            try Self.saveBacklog(db, backlog, appID: appID, deviceID: deviceID)
            try Self.saveLiveHandOvers(db, handOvers, appID: appID, deviceID: deviceID)
            // What waits besides them: they count as pending only once a wake hands them over again.
            return EventIngestion(device: device, live: live, liveSequence: sequence, queued: 0,
                                  backlog: backlog.queue.pendingCount)
        }
    }

    /// The backlog a wake would deliver now, without delivering it.
    public func eventBacklog(appID: String, deviceID: String, catalog: EventCatalog) async throws -> [CoalescedNotification] {
        try await pool.read { db in
            _ = try Self.existingDevice(db, appID: appID, deviceID: deviceID)
            return try Self.backlog(db, appID: appID, deviceID: deviceID).preview(catalog: catalog)
        }
    }

    public func holdInInbox(_ items: [InboxItem]) async throws -> [Int64?] {
        guard !items.isEmpty else { return [] }
        let rows = try items.map { ($0, try $0.storedContent ?? String(decoding: Self.encoder.encode($0.content), as: UTF8.self)) }
        return try await pool.write { db in
            // A device deleted meanwhile has nobody to hold anything for: one read for the batch.
            var devices: Set<String> = []
            let asked = Set(items.map { $0.occurrence.appID + "\u{0}" + $0.occurrence.deviceID })
            try Self.devicesPresent.execute(asked.map { key in
                let parts = key.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
                return [String(parts[0]).databaseValue, String(parts[1]).databaseValue]
            }, in: db) { row in
                let appID: String = row[0], deviceID: String = row[1]
                devices.insert(appID + "\u{0}" + deviceID)
            }
            var sequences = [Int64?](repeating: nil, count: items.count)
            // A firing's item is found again by its fire-log key; the others are inserted alone.
            var firings: [[DatabaseValue]] = []
            var positions: [Int64: Int] = [:]
            for (index, (item, content)) in rows.enumerated() {
                let occurrence = item.occurrence
                guard devices.contains(occurrence.appID + "\u{0}" + occurrence.deviceID) else { continue }
                let values = [
                    occurrence.appID.databaseValue, occurrence.deviceID.databaseValue, occurrence.id.databaseValue,
                    occurrence.notificationID.databaseValue, occurrence.scheduledFor.millisecondsSince1970.databaseValue,
                    item.firedAt.millisecondsSince1970.databaseValue, occurrence.late.databaseValue,
                    occurrence.missed.databaseValue, content.databaseValue, item.logID.databaseValue,
                ]
                if let logID = item.logID {
                    firings.append(values)
                    positions[logID] = index
                } else {
                    try Self.inboxInsert.execute([values], in: db) { sequences[index] = $0[0] }
                }
            }
            try Self.inboxInsert.execute(firings, in: db) { row in
                let logID: Int64 = row[1]
                if let index = positions[logID] { sequences[index] = row[0] }
            }
            for (logID, index) in positions where sequences[index] == nil {
                // Held before (a firing handed over again): the same item, the same id.
                sequences[index] = try Int64.fetchOne(db, sql: "SELECT key FROM device_inbox WHERE delivery_key = ?",
                                                      arguments: [logID])
            }
            return sequences
        }
    }

    /// The devices among (app, device) rows that exist.
    static let devicesPresent = SQLiteMultiRow(sql: { values in
        "SELECT app_id, id FROM device WHERE (app_id, id) IN (VALUES \(values))"
    }, columns: 2)

    /// Inbox items: (app, device, occurrence, notification, instant, fired at, late, missed,
    /// content, fire-log key) rows; an item already held for its firing is left as it is.
    static let inboxInsert = SQLiteMultiRow(sql: { values in
        """
        INSERT INTO device_inbox (app_id, device_id, occurrence_id, notification_id, scheduled_for, fired_at, late,
            missed, content, delivery_key)
        SELECT * FROM (VALUES \(values)) WHERE true
        ON CONFLICT DO NOTHING
        RETURNING key, delivery_key
        """
    }, columns: 10)

    /// Records a wake push unless `perHour` were already sent in the last hour. Returns whether
    /// this one may go.
    public func recordWakePush(appID: String, deviceID: String, now: Date, perHour: Int) async throws -> Bool {
        try await pool.write { db in
            let text = try String.fetchOne(db, sql: "SELECT wake_pushes FROM device_events WHERE app_id = ? AND device_id = ?",
                                           arguments: [appID, deviceID]) ?? "[]"
            let hourAgo = now.millisecondsSince1970 - 3_600_000
            var sent = ((try? JSONDecoder().decode([Int64].self, from: Data(text.utf8))) ?? []).filter { $0 > hourAgo }
            guard sent.count < perHour else { return false }
            sent.append(now.millisecondsSince1970)
            let updated = String(decoding: try JSONEncoder().encode(sent), as: UTF8.self)
            try db.execute(sql: """
                INSERT INTO device_events (app_id, device_id, queue, wake_pushes) VALUES (?, ?, ?, ?)
                ON CONFLICT(app_id, device_id) DO UPDATE SET wake_pushes = excluded.wake_pushes
                """, arguments: [appID, deviceID, String(decoding: try Self.encoder.encode(DeviceEventQueue()), as: UTF8.self), updated])
            return true
        }
    }

    // MARK: Rows

    static func existingDevice(_ db: Database, appID: String, deviceID: String) throws -> Device {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(deviceColumns) FROM device WHERE app_id = ? AND id = ?",
                                         arguments: [appID, deviceID]) else {
            throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        }
        return try device(from: row)
    }

    static func backlog(_ db: Database, appID: String, deviceID: String) throws -> AcknowledgedBacklog {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT queue, unacknowledged, handed_seq FROM device_events WHERE app_id = ? AND device_id = ?
            """, arguments: [appID, deviceID]) else { return AcknowledgedBacklog() }
        return try AcknowledgedBacklog(storedQueue: row[0], unacknowledged: row[1], handedSequence: row[2])
    }

    static func saveBacklog(_ db: Database, _ backlog: AcknowledgedBacklog, appID: String, deviceID: String) throws {
        func text(_ queue: DeviceEventQueue?) throws -> String? {
            try queue.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        }
        try db.execute(sql: """
            INSERT INTO device_events (app_id, device_id, queue, unacknowledged, handed_seq) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(app_id, device_id) DO UPDATE SET queue = excluded.queue,
                unacknowledged = excluded.unacknowledged, handed_seq = excluded.handed_seq
            """, arguments: [appID, deviceID, try text(backlog.queue), try text(backlog.unacknowledged),
                             backlog.handedSequence])
    }

    /// The live hand-overs the device has not acknowledged.
    static func liveHandOvers(_ db: Database, appID: String, deviceID: String) throws -> LiveHandOvers {
        guard let text = try String.fetchOne(db, sql: """
            SELECT live_events FROM device_events WHERE app_id = ? AND device_id = ?
            """, arguments: [appID, deviceID]) else { return LiveHandOvers() }
        return try JSONDecoder().decode(LiveHandOvers.self, from: Data(text.utf8))
    }

    /// Stores the live hand-overs; the device's row in `device_events` exists (``saveBacklog``).
    static func saveLiveHandOvers(_ db: Database, _ handOvers: LiveHandOvers, appID: String, deviceID: String) throws {
        let text = handOvers == LiveHandOvers() ? nil : String(decoding: try encoder.encode(handOvers), as: UTF8.self)
        try db.execute(sql: "UPDATE device_events SET live_events = ? WHERE app_id = ? AND device_id = ?",
                       arguments: [text, appID, deviceID])
    }

    /// The next id of the one increasing series that inbox items and backlog hand-overs share
    /// (the inbox's AUTOINCREMENT counter), so one cursor acknowledges both.
    static func nextHandOverSequence(_ db: Database) throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO sqlite_sequence (name, seq) SELECT 'device_inbox', 0
            WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'device_inbox')
            """)
        try db.execute(sql: "UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = 'device_inbox'")
        return try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'device_inbox'") ?? 0
    }

    public func acknowledge(appID: String, deviceID: String, upTo: Int64) async throws -> Acknowledgement {
        try await pool.write { db in
            _ = try Self.existingDevice(db, appID: appID, deviceID: deviceID)
            return try Self.acknowledge(db, appID: appID, deviceID: deviceID, upTo: upTo)
        }
    }

    /// Acknowledges the inbox items up to and including `upTo`, and the backlog hand-over if its
    /// id is in range. An acknowledged item whose firing is still pending stays as a tombstone
    /// (a retry of that firing must not hold it again); the others are removed.
    @discardableResult
    static func acknowledge(_ db: Database, appID: String, deviceID: String, upTo: Int64) throws -> Acknowledgement {
        try db.execute(sql: """
            UPDATE device_inbox SET acknowledged = 1 WHERE app_id = ? AND device_id = ? AND key <= ? AND acknowledged = 0
            """, arguments: [appID, deviceID, upTo])
        let inboxItems = db.changesCount
        try db.execute(sql: """
            DELETE FROM device_inbox WHERE app_id = ?1 AND device_id = ?2 AND acknowledged = 1 AND (delivery_key IS NULL
                OR delivery_key NOT IN (SELECT key FROM delivery WHERE app_id = ?1 AND device_id = ?2 AND outcome = 'pending'))
            """, arguments: [appID, deviceID])
        var backlog = try Self.backlog(db, appID: appID, deviceID: deviceID)
        let acknowledged = backlog.acknowledge(upTo: upTo)
        if acknowledged { try saveBacklog(db, backlog, appID: appID, deviceID: deviceID) }
        var handOvers = try liveHandOvers(db, appID: appID, deviceID: deviceID)
        let before = handOvers
        handOvers.acknowledge(upTo: upTo)
        if handOvers != before { try saveLiveHandOvers(db, handOvers, appID: appID, deviceID: deviceID) }
        return Acknowledgement(inboxItems: inboxItems, backlog: acknowledged)
    }

    public func handedOver(appID: String, deviceID: String, after: Int64) async throws -> HandedOver {
        // A read is one snapshot: both lists stop at the same committed id.
        try await pool.read { db in
            let live = try Self.liveHandOvers(db, appID: appID, deviceID: deviceID).after(after)
            return HandedOver(inbox: try Self.unacknowledgedInbox(db, appID: appID, deviceID: deviceID, after: after),
                              live: live.batches, missedLive: live.missed)
        }
    }

    /// The inbox as it stands (or only its items above `after`): items stay until acknowledged,
    /// so a client that dropped before reading them gets them again, with the same sequence ids.
    static func unacknowledgedInbox(_ db: Database, appID: String, deviceID: String, after: Int64 = -1) throws -> [InboxItem] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT occurrence_id, notification_id, scheduled_for, fired_at, late, missed, content, key FROM device_inbox
            WHERE app_id = ? AND device_id = ? AND key > ? AND acknowledged = 0 ORDER BY key
            """, arguments: [appID, deviceID, after])
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
