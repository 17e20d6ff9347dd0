import Foundation
import GRDB
import HeraldCore

/// Lifecycle state, coalesced event queues and inboxes: each change in one transaction, so a
/// restart loses nothing queued and a wake never delivers the same backlog twice.
extension SQLiteStore {
    public func setState(appID: String, deviceID: String, state: LifecycleState, drain: Bool,
                         catalog: EventCatalog, acknowledging upTo: Int64?) async throws -> WakeResult {
        try await connections.write { db in
            var device = try Self.existingDevice(db, appID: appID, deviceID: deviceID)
            if let upTo { try Self.acknowledge(db, appID: appID, deviceID: deviceID, upTo: upTo) }
            guard device.state.canMove(to: state) else {
                throw HeraldError.invalidTransition(from: device.state, to: state)
            }
            let woke = device.state.wakes(movingTo: state, drain: drain)
            device.state = state
            try db.cachedStatement(sql: "UPDATE device SET state = ? WHERE app_id = ? AND id = ?")
                .execute(arguments: [state.rawValue, appID, deviceID])
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
        try await connections.write { db in
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
        try await connections.read { db in
            _ = try Self.existingDevice(db, appID: appID, deviceID: deviceID)
            return try Self.backlog(db, appID: appID, deviceID: deviceID).preview(catalog: catalog)
        }
    }

    public func holdInInbox(_ items: [InboxItem]) async throws -> [Int64?] {
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
            try Self.inboxHold.execute(firings, in: db) { row in
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
    /// The outcome is written with it (``CompletedDelivery/heldInInbox(_:)``): the firing's row
    /// is written once, and the dispatcher storing the same outcome later writes nothing.
    static let inboxHold = SQLiteMultiRow(sql: { values in
        """
            UPDATE delivery SET inbox_seq = v.column2, channel = '\(CompletedDelivery.heldChannel)',
                outcome = '\(CompletedDelivery.heldOutcome)'
            FROM (VALUES \(values)) AS v WHERE delivery.key = v.column1 AND delivery.inbox_seq IS NULL
            RETURNING delivery.key, delivery.inbox_seq
            """
    }, columns: 2)

    /// The hand-over ids of firings already held: (fire-log key) rows.
    static let inboxSequences = SQLiteMultiRow(sql: { values in
        "SELECT key, inbox_seq FROM delivery WHERE key IN (VALUES \(values)) AND inbox_seq IS NOT NULL"
    }, columns: 1)

    /// Records a wake push unless `perHour` were already sent in the last hour. Returns whether
    /// this one may go.
    public func recordWakePush(appID: String, deviceID: String, now: Date, perHour: Int) async throws -> Bool {
        try await connections.write { db in
            let text = try String.fetchOne(db.cachedStatement(sql: "SELECT wake_pushes FROM device_events WHERE app_id = ? AND device_id = ?"),
                                           arguments: [appID, deviceID]) ?? "[]"
            let hourAgo = now.millisecondsSince1970 - 3_600_000
            var sent = ((try? JSONDecoder().decode([Int64].self, from: Data(text.utf8))) ?? []).filter { $0 > hourAgo }
            guard sent.count < perHour else { return false }
            sent.append(now.millisecondsSince1970)
            let updated = String(decoding: try JSONEncoder().encode(sent), as: UTF8.self)
            try db.cachedStatement(sql: """
                INSERT INTO device_events (app_id, device_id, queue, wake_pushes) VALUES (?, ?, ?, ?)
                ON CONFLICT(app_id, device_id) DO UPDATE SET wake_pushes = excluded.wake_pushes
                """)
                    .execute(arguments: [appID, deviceID, String(decoding: try Self.encoder.encode(DeviceEventQueue()), as: UTF8.self), updated])
            return true
        }
    }

    // MARK: Rows

    static func existingDevice(_ db: Database, appID: String, deviceID: String) throws -> Device {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(deviceColumns) FROM device WHERE app_id = ? AND id = ?"),
                                         arguments: [appID, deviceID]) else {
            throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        }
        return try device(from: row)
    }

    static func backlog(_ db: Database, appID: String, deviceID: String) throws -> AcknowledgedBacklog {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT queue, unacknowledged, handed_seq FROM device_events WHERE app_id = ? AND device_id = ?
            """), arguments: [appID, deviceID]) else { return AcknowledgedBacklog() }
        return try AcknowledgedBacklog(storedQueue: row[0], unacknowledged: row[1], handedSequence: row[2])
    }

    static func saveBacklog(_ db: Database, _ backlog: AcknowledgedBacklog, appID: String, deviceID: String) throws {
        func text(_ queue: DeviceEventQueue?) throws -> String? {
            try queue.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        }
        try db.cachedStatement(sql: """
            INSERT INTO device_events (app_id, device_id, queue, unacknowledged, handed_seq) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(app_id, device_id) DO UPDATE SET queue = excluded.queue,
                unacknowledged = excluded.unacknowledged, handed_seq = excluded.handed_seq
            """).execute(arguments: [appID, deviceID, try text(backlog.queue), try text(backlog.unacknowledged),
                             backlog.handedSequence])
    }

    /// The live hand-overs the device has not acknowledged.
    static func liveHandOvers(_ db: Database, appID: String, deviceID: String) throws -> LiveHandOvers {
        guard let text = try String.fetchOne(db.cachedStatement(sql: """
            SELECT live_events FROM device_events WHERE app_id = ? AND device_id = ?
            """), arguments: [appID, deviceID]) else { return LiveHandOvers() }
        return try JSONDecoder().decode(LiveHandOvers.self, from: Data(text.utf8))
    }

    /// Stores the live hand-overs; the device's row in `device_events` exists (``saveBacklog``).
    static func saveLiveHandOvers(_ db: Database, _ handOvers: LiveHandOvers, appID: String, deviceID: String) throws {
        let text = handOvers == LiveHandOvers() ? nil : String(decoding: try encoder.encode(handOvers), as: UTF8.self)
        try db.cachedStatement(sql: "UPDATE device_events SET live_events = ? WHERE app_id = ? AND device_id = ?")
            .execute(arguments: [text, appID, deviceID])
    }

    /// The next id of the one increasing series that inbox items and backlog hand-overs share,
    /// so one cursor acknowledges both.
    static func nextHandOverSequence(_ db: Database) throws -> Int64 {
        try reserveHandOverSequences(1, db)
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

    public func acknowledge(appID: String, deviceID: String, upTo: Int64) async throws -> Acknowledgement {
        try await connections.write { db in
            _ = try Self.existingDevice(db, appID: appID, deviceID: deviceID)
            return try Self.acknowledge(db, appID: appID, deviceID: deviceID, upTo: upTo)
        }
    }

    /// Acknowledges the inbox items up to and including `upTo`, and the backlog hand-over if its
    /// id is in range. An item is its firing's fire-log row, marked acknowledged: a retry of that
    /// firing finds it held and does not hold it again.
    @discardableResult
    static func acknowledge(_ db: Database, appID: String, deviceID: String, upTo: Int64) throws -> Acknowledgement {
        try db.cachedStatement(sql: """
            UPDATE delivery SET inbox_acknowledged = 1
            WHERE app_id = ? AND device_id = ? AND inbox_seq IS NOT NULL AND inbox_seq <= ? AND inbox_acknowledged = 0
            """).execute(arguments: [appID, deviceID, upTo])
        let inboxItems = db.changesCount
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
        try await connections.read { db in
            let live = try Self.liveHandOvers(db, appID: appID, deviceID: deviceID).after(after)
            return HandedOver(inbox: try Self.unacknowledgedInbox(db, appID: appID, deviceID: deviceID, after: after),
                              live: live.batches, missedLive: live.missed)
        }
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
