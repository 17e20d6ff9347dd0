import Foundation
import GRDB
import HeraldCore
import Synchronization

/// The embedded store: one SQLite file in WAL mode under the data directory.
///
/// WAL with `synchronous = NORMAL` keeps every committed transaction across a crash or `kill -9`
/// of the process; `FULL` also survives power loss, at the price of an fsync per commit.
public final class SQLiteStore: HeraldStore {
    public enum Synchronous: String, Sendable, CaseIterable {
        case normal = "NORMAL"
        case full = "FULL"
    }

    let pool: DatabasePool
    /// Every call's reads and writes: the pool, with SQLite's faults named after the call.
    let connections: SQLiteConnections
    /// The API's notification writes, committed together when they arrive together.
    let notificationWrites: SQLiteGroupCommit
    public let path: String
    private let checkpointer: Task<Void, Never>
    /// Called after a feedback event is committed, so the outbox dispatcher wakes instead of polling.
    private let feedbackObserver = Mutex<(@Sendable () -> Void)?>(nil)

    /// Opens (creating if needed) the database at `path` and migrates it to the current schema.
    /// `writeCounter` (benchmarks only) counts what every connection of the store does.
    public init(path: String, synchronous: Synchronous = .normal, writeCounter: SQLiteWriteCounter? = nil) throws {
        self.path = path
        var configuration = Configuration()
        configuration.label = "herald"
        configuration.foreignKeysEnabled = true
        // Concurrent API writers wait for each other instead of failing.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // A larger page cache keeps the timer and delivery indexes in memory under load.
            try db.cachedStatement(sql: "PRAGMA cache_size = -65536").execute()
            writeCounter?.install(on: db.sqliteConnection, role: db.configuration.readonly ? .reader : .writer)
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        connections = SQLiteConnections(pool: pool)
        notificationWrites = SQLiteGroupCommit(pool: pool)
        // Set on the writer after the pool opened it: DatabasePool applies its own default
        // (NORMAL) after prepareDatabase, which would silently undo FULL.
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue)")
            // Checkpoints normally run in the background (below); this is only a safety net.
            try db.cachedStatement(sql: "PRAGMA wal_autocheckpoint = 16384").execute()
        }
        try Self.migrator.migrate(pool)
        // Opened now, not later on the background task: a connection opened late could recreate
        // the file of a store whose directory has meanwhile been removed.
        checkpointer = Self.startCheckpointer(try DatabaseQueue(path: path, configuration: configuration))
    }

    deinit {
        checkpointer.cancel()
    }

    /// Registers the one function told about new feedback events.
    public func observeFeedback(_ observer: @escaping @Sendable () -> Void) {
        feedbackObserver.withLock { $0 = observer }
    }

    func feedbackRaised() {
        feedbackObserver.withLock { $0 }?()
    }

    /// The writer's `synchronous` setting as SQLite reports it (1 = NORMAL, 2 = FULL).
    public func synchronousSetting() throws -> Int {
        try pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Copies the WAL back into the database file every 250 ms on a connection of its own.
    ///
    /// A checkpoint syncs the database file; run inside a commit it stalls whoever committed
    /// (the scheduler, mid-batch) for milliseconds. Passive checkpoints here never block writers.
    private static func startCheckpointer(_ connection: DatabaseQueue) -> Task<Void, Never> {
        Task.detached(priority: .utility) {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                _ = try? await connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
            }
        }
    }

    /// Opens `herald.sqlite` in `directory`, creating the directory if needed.
    public convenience init(directory: String, synchronous: Synchronous = .normal,
                            writeCounter: SQLiteWriteCounter? = nil) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try self.init(path: (directory as NSString).appendingPathComponent("herald.sqlite"), synchronous: synchronous,
                      writeCounter: writeCounter)
    }

    // MARK: Apps

    public func saveApp(_ app: App) async throws -> Bool {
        let now = Date().millisecondsSince1970
        let push = try app.push.map { String(decoding: try Self.encoder.encode($0), as: UTF8.self) }
        let customKinds = String(decoding: try Self.encoder.encode(app.customKinds), as: UTF8.self)
        let fcm = try app.fcm.map { String(decoding: try Self.encoder.encode($0), as: UTF8.self) }
        let webPush = try app.webPush.map { String(decoding: try Self.encoder.encode($0), as: UTF8.self) }
        return try await connections.write { db in
            let existed = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM app WHERE id = ?"),
                arguments: [app.id]) ?? false
            try db.cachedStatement(sql: """
                INSERT INTO app (id, overflow, push, custom_kinds, fcm, web_push, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET overflow = excluded.overflow, push = excluded.push,
                    custom_kinds = excluded.custom_kinds, fcm = excluded.fcm, web_push = excluded.web_push,
                    updated_at = excluded.updated_at
                """).execute(arguments: [app.id, app.overflow.rawValue, push, customKinds, fcm, webPush, now, now])
            return !existed
        }
    }

    public func app(id: String) async throws -> App? {
        try await connections.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.appColumns) FROM app WHERE id = ?"),
                arguments: [id]).map(Self.app(from:))
        }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await connections.write { db in
            try db.cachedStatement(sql: "DELETE FROM app WHERE id = ?").execute(arguments: [id])
            return db.changesCount > 0
        }
    }

    // MARK: Devices

    public func saveDevice(_ device: Device, now: Date) async throws -> DeviceSaveResult {
        let nowMilliseconds = now.millisecondsSince1970
        return try await connections.write { db in
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM app WHERE id = ?"),
                arguments: [device.appID]) ?? false else {
                throw HeraldError.appNotFound(device.appID)
            }
            let previousZone = try String.fetchOne(
                db, sql: "SELECT time_zone FROM device WHERE app_id = ? AND id = ?", arguments: [device.appID, device.id])
            let webPush = try DeviceJSON.encode(device.webPush)
            // Activities are not among the columns a save writes: they are registered one by one
            // (``saveActivity(appID:deviceID:activity:token:now:)``), and a PUT keeps them.
            try db.cachedStatement(sql: """
                INSERT INTO device (app_id, id, time_zone, token, voip_token, locale, state, background_modes,
                    platform, fcm_token, web_push, push_to_start_tokens, broadcast_channel, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(app_id, id) DO UPDATE SET time_zone = excluded.time_zone, token = excluded.token,
                    voip_token = excluded.voip_token, locale = excluded.locale, state = excluded.state,
                    background_modes = excluded.background_modes, platform = excluded.platform,
                    fcm_token = excluded.fcm_token, web_push = excluded.web_push,
                    push_to_start_tokens = excluded.push_to_start_tokens, broadcast_channel = excluded.broadcast_channel,
                    updated_at = excluded.updated_at
                """).execute(arguments: [device.appID, device.id, device.timeZone, device.token, device.voipToken,
                                 device.locale, device.state.rawValue, device.backgroundModes.joined(separator: ","),
                                 device.platform.rawValue, device.fcmToken, webPush,
                                 try DeviceJSON.encode(device.pushToStartTokens.isEmpty ? nil : device.pushToStartTokens),
                                 try DeviceJSON.encode(device.broadcastChannel), nowMilliseconds, nowMilliseconds])
            // Registering an address again means the app got it anew from the OS or the browser:
            // it is valid again, and a refusal timestamped before now cannot kill it.
            for token in device.registeredAddresses {
                try db.cachedStatement(sql: "DELETE FROM invalid_token WHERE app_id = ? AND token = ?")
                    .execute(arguments: [device.appID, token])
                try db.cachedStatement(sql: """
                    INSERT INTO token_registration (app_id, token, registered_at) VALUES (?, ?, ?)
                    ON CONFLICT(app_id, token) DO UPDATE SET registered_at = max(registered_at, excluded.registered_at)
                    """).execute(arguments: [device.appID, token, nowMilliseconds])
            }
            var rearmed: [TimerEntry] = []
            if let previousZone, previousZone != device.timeZone {
                rearmed = try Self.retimeFloating(db, device: device, now: now)
            }
            return DeviceSaveResult(created: previousZone == nil, rearmed: rearmed)
        }
    }

    public func device(appID: String, id: String) async throws -> Device? {
        try await connections.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.deviceColumns) FROM device WHERE app_id = ? AND id = ?"),
                             arguments: [appID, id]).map { try Self.device(from: $0) }
        }
    }

    public func deleteDevice(appID: String, id: String) async throws -> Bool {
        try await connections.write { db in
            try db.cachedStatement(sql: "DELETE FROM device WHERE app_id = ? AND id = ?")
                .execute(arguments: [appID, id])
            return db.changesCount > 0
        }
    }

    // MARK: Live Activities and broadcast channels

    public func saveActivity(appID: String, deviceID: String, activity: String, token: LiveActivityToken,
                             now: Date) async throws -> Bool? {
        let at = now.millisecondsSince1970
        return try await connections.write { db in
            // Read and written in one write transaction: two activities registered at once both stay.
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT activities FROM device WHERE app_id = ? AND id = ?"),
                                             arguments: [appID, deviceID]) else { return nil }
            var activities: [String: LiveActivityToken] = try DeviceJSON.decode(row[0]) ?? [:]
            let created = activities.updateValue(token, forKey: activity) == nil
            try db.cachedStatement(sql: "UPDATE device SET activities = ?, updated_at = ? WHERE app_id = ? AND id = ?")
                .execute(arguments: [try DeviceJSON.encode(activities), at, appID, deviceID])
            try db.cachedStatement(sql: "DELETE FROM invalid_token WHERE app_id = ? AND token = ?")
                .execute(arguments: [appID, token.token])
            try db.cachedStatement(sql: """
                INSERT INTO token_registration (app_id, token, registered_at) VALUES (?, ?, ?)
                ON CONFLICT(app_id, token) DO UPDATE SET registered_at = max(registered_at, excluded.registered_at)
                """).execute(arguments: [appID, token.token, at])
            return created
        }
    }

    public func forgetActivity(appID: String, deviceID: String, activity: String) async throws -> Bool {
        try await connections.write { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT activities FROM device WHERE app_id = ? AND id = ?"),
                                             arguments: [appID, deviceID]) else { return false }
            var activities: [String: LiveActivityToken] = try DeviceJSON.decode(row[0]) ?? [:]
            guard activities.removeValue(forKey: activity) != nil else { return false }
            try db.cachedStatement(sql: "UPDATE device SET activities = ? WHERE app_id = ? AND id = ?")
                .execute(arguments: [try DeviceJSON.encode(activities.isEmpty ? nil : activities), appID, deviceID])
            return true
        }
    }

    public func createChannel(_ channel: BroadcastChannel, appID: String, now: Date) async throws -> Bool {
        let at = now.millisecondsSince1970
        let text = try DeviceJSON.encode(channel)
        return try await connections.write { db in
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM app WHERE id = ?"),
                arguments: [appID]) ?? false else {
                throw HeraldError.appNotFound(appID)
            }
            try db.cachedStatement(sql: """
                INSERT INTO device (app_id, id, time_zone, state, background_modes, broadcast_channel, created_at, updated_at)
                VALUES (?, ?, 'UTC', ?, '', ?, ?, ?) ON CONFLICT(app_id, id) DO NOTHING
                """)
                    .execute(arguments: [appID, BroadcastChannel.audienceID(name: channel.name), LifecycleState.notRunning.rawValue,
                                 text, at, at])
            return db.changesCount > 0
        }
    }

    public func channels(appID: String) async throws -> [BroadcastChannel] {
        try await connections.read { db in
            try String.fetchAll(db.cachedStatement(sql: """
                SELECT broadcast_channel FROM device WHERE app_id = ? AND broadcast_channel IS NOT NULL ORDER BY id
                """), arguments: [appID]).compactMap { try DeviceJSON.decode($0) }
        }
    }

    // MARK: Notifications

    public func notifications(appID: String, deviceID: String) async throws -> [LocalNotification] {
        try await connections.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.notificationColumns) FROM notification n WHERE app_id = ? AND device_id = ?
                ORDER BY next_fire_at, key
                """), arguments: [appID, deviceID]).map { try Self.notification(from: $0) }
        }
    }

    public func notification(appID: String, deviceID: String, id: String) async throws -> LocalNotification? {
        try await connections.read { db in
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT \(Self.notificationColumns) FROM notification n WHERE app_id = ? AND device_id = ? AND id = ?
                """), arguments: [appID, deviceID, id]).map { try Self.notification(from: $0) }
        }
    }

    public func cancel(appID: String, deviceID: String, id: String) async throws -> Bool {
        try await notificationWrites.write { db in
            try db.cachedStatement(sql: "DELETE FROM notification WHERE app_id = ? AND device_id = ? AND id = ?")
                .execute(arguments: [appID, deviceID, id])
            return db.changesCount > 0
        }
    }

    public func cancelAll(appID: String, deviceID: String) async throws -> Int {
        try await notificationWrites.write { db in
            try db.cachedStatement(sql: "DELETE FROM notification WHERE app_id = ? AND device_id = ?")
                .execute(arguments: [appID, deviceID])
            return db.changesCount
        }
    }

    // MARK: Deliveries

    public func recordDeliveries(_ deliveries: [Delivery]) async throws {
        try await connections.write { db in
            for delivery in deliveries {
                // Held in the inbox on the way, it already has its row (the inbox item): the
                // outcome goes there, so the presentation is listed once.
                try db.cachedStatement(sql: """
                    UPDATE delivery SET channel = ?, outcome = ?, apns_status = ?, apns_id = ? WHERE key = (
                        SELECT key FROM delivery WHERE app_id = ? AND device_id = ? AND occurrence_id = ?
                            AND notification_key IS NULL AND inbox_seq IS NOT NULL AND outcome = 'pending'
                        ORDER BY key DESC LIMIT 1)
                    """).execute(arguments: [delivery.channel.rawValue, delivery.outcome.rawValue, delivery.apnsStatus, delivery.apnsID,
                                     delivery.appID, delivery.deviceID, delivery.occurrenceID])
                if db.changesCount == 0 { try Self.insert(delivery, db) }
            }
        }
    }

    public func deliveries(appID: String, deviceID: String, limit: Int) async throws -> [Delivery] {
        try await deliveries(appID: appID, deviceID: deviceID, before: nil, limit: limit).items
    }

    // MARK: Scheduler

    public func timerEntries() async throws -> [TimerEntry] {
        try await connections.read { db in
            var entries: [TimerEntry] = []
            entries.reserveCapacity(try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM notification")) ?? 0)
            let statement = try db.makeStatement(sql: "SELECT next_fire_at, key FROM notification")
            let rows = try Row.fetchCursor(statement)
            while let row = try rows.next() {
                entries.append(TimerEntry(fireAt: row[0], key: row[1]))
            }
            return entries
        }
    }

    public func completeDeliveries(_ outcomes: [CompletedDelivery]) async throws {
        guard !outcomes.isEmpty else { return }
        try await connections.write { db in try Self.complete(outcomes, db) }
    }

    /// Stores a batch's outcomes with one statement per chunk, not one per firing.
    static func complete(_ outcomes: [CompletedDelivery], _ db: Database) throws {
        try outcomeUpdate.execute(outcomes.map { completed in
            [completed.deliveryID.databaseValue, completed.channel.rawValue.databaseValue, completed.outcome.rawValue.databaseValue,
             completed.apnsStatus.databaseValue, completed.apnsID.databaseValue]
        }, in: db)
    }

    /// Outcomes by fire-log key: (key, channel, outcome, APNs status, apns-id) rows. A row that
    /// already holds its outcome (written when its item was held) is not written again.
    static let outcomeUpdate = SQLiteMultiRow(sql: { values in
        """
        UPDATE delivery SET channel = v.column2, outcome = v.column3, apns_status = v.column4, apns_id = v.column5
        FROM (VALUES \(values)) AS v WHERE delivery.key = v.column1
            AND (delivery.channel IS NOT v.column2 OR delivery.outcome IS NOT v.column3
                OR delivery.apns_status IS NOT v.column4 OR delivery.apns_id IS NOT v.column5)
        """
    }, columns: 5)

    // MARK: Tokens and feedback

    public func invalidateToken(_ invalid: InvalidToken, feedback: FeedbackEvent) async throws -> Bool {
        let invalidated = try await connections.write { db -> Bool in
            // APNs' timestamp says when it last knew the token was dead; a device that registered
            // the token after that has a fresh, valid one.
            if let since = invalid.apnsTimestamp,
               let registered = try Int64.fetchOne(db.cachedStatement(sql: "SELECT registered_at FROM token_registration WHERE app_id = ? AND token = ?"),
                                                   arguments: [invalid.appID, invalid.token]),
               registered > since {
                return false
            }
            try db.cachedStatement(sql: """
                INSERT INTO invalid_token (app_id, token, reason, apns_timestamp, invalidated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(app_id, token) DO UPDATE SET reason = excluded.reason,
                    apns_timestamp = excluded.apns_timestamp, invalidated_at = excluded.invalidated_at
                """).execute(arguments: [invalid.appID, invalid.token, invalid.reason, invalid.apnsTimestamp,
                                 invalid.invalidatedAt.millisecondsSince1970])
            try Self.insertFeedback([feedback], db)
            return true
        }
        if invalidated { feedbackRaised() }
        return invalidated
    }

    public func invalidToken(appID: String, token: String) async throws -> InvalidToken? {
        try await connections.read { db in
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT reason, apns_timestamp, invalidated_at FROM invalid_token WHERE app_id = ? AND token = ?
                """), arguments: [appID, token]).map { row in
                InvalidToken(appID: appID, token: token, reason: row[0], apnsTimestamp: row[1],
                             invalidatedAt: Date(millisecondsSince1970: row[2]))
            }
        }
    }

    public func invalidTokens(appID: String, among tokens: Set<String>) async throws -> Set<String> {
        guard !tokens.isEmpty else { return [] }
        return try await connections.read { db in
            let probe = try db.cachedStatement(sql: "SELECT 1 FROM invalid_token WHERE app_id = ? AND token = ?")
            var invalid: Set<String> = []
            for token in tokens where try Bool.fetchOne(probe, arguments: [appID, token]) ?? false {
                invalid.insert(token)
            }
            return invalid
        }
    }

    public func feedbackEvents(after key: Int64, limit: Int) async throws -> [(key: Int64, event: FeedbackEvent)] {
        try await connections.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT key, type, app_id, payload, created_at FROM feedback_event WHERE key > ? ORDER BY key LIMIT ?
                """), arguments: [key, limit]).compactMap { row in
                // A type this version does not know is left out.
                guard let type = FeedbackType(rawValue: row[1]) else { return nil }
                let payloadText: String = row[3]
                let payload = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(payloadText.utf8))) ?? [:]
                return (row[0], FeedbackEvent(type: type, appID: row[2], payload: payload,
                                             createdAt: Date(millisecondsSince1970: row[4])))
            }
        }
    }

    // MARK: Bulk loading (benchmarks and imports)

    /// Inserts many notifications in one transaction without the per-device limit check; the
    /// caller guarantees the limit. Used to prepare large data sets quickly.
    public func bulkInsert(_ notifications: [LocalNotification]) async throws {
        let now = Date().millisecondsSince1970
        let rows = try notifications.map { ($0, String(decoding: try Self.encoder.encode($0.content), as: UTF8.self)) }
        try await connections.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, repeat_unit, repeat_every,
                    repeat_count, repeat_until, content, next_index, next_fire_at, revision, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
                """)
            for (notification, content) in rows {
                try insert.execute(arguments: StatementArguments(
                    [notification.appID, notification.deviceID, notification.id] + Self.scheduleArguments(notification)
                    + [content, notification.nextIndex, notification.nextFireDate.millisecondsSince1970, now]))
            }
        }
    }
}
