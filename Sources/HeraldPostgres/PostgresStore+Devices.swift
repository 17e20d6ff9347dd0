import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// Apps, devices, notifications and their delivery records. Writes that apply a per-device rule
/// (the 128 limit, a re-timing) first lock the device row, so nodes scheduling for one device at
/// once take turns.
extension PostgresStore {
    // MARK: Apps

    public func saveApp(_ app: App) async throws -> Bool {
        let now = Date().millisecondsSince1970
        let push = try app.push.map(Self.json)
        let customKinds = try Self.json(app.customKinds)
        let fcm = try app.fcm.map(Self.json)
        let webPush = try app.webPush.map(Self.json)
        return try await transaction { connection in
            // xmax is 0 on a row this statement inserted, and set on one it updated.
            try await connection.row("""
                INSERT INTO app (id, overflow, push, custom_kinds, fcm, web_push, created_at, updated_at)
                VALUES (\(app.id), \(app.overflow.rawValue), \(push), \(customKinds), \(fcm), \(webPush), \(now), \(now))
                ON CONFLICT (id) DO UPDATE SET overflow = excluded.overflow, push = excluded.push,
                    custom_kinds = excluded.custom_kinds, fcm = excluded.fcm, web_push = excluded.web_push,
                    updated_at = excluded.updated_at
                RETURNING (xmax = 0)
                """, logger: self.logger)?.value(0, as: Bool.self) ?? false
        }
    }

    public func app(id: String) async throws -> App? {
        try await read { connection in
            try await connection.row("SELECT \(unescaped: Self.appColumns) FROM app WHERE id = \(id)", logger: self.logger)
                .map(Self.app(from:))
        }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await transaction { connection in
            try await connection.count("DELETE FROM app WHERE id = \(id) RETURNING 1", logger: self.logger) > 0
        }
    }

    // MARK: Devices

    public func saveDevice(_ device: Device, now: Date) async throws -> DeviceSaveResult {
        let at = now.millisecondsSince1970
        let modes = device.backgroundModes.joined(separator: ",")
        let webPush = try DeviceJSON.encode(device.webPush)
        let pushToStart = try DeviceJSON.encode(device.pushToStartTokens.isEmpty ? nil : device.pushToStartTokens)
        let channel = try DeviceJSON.encode(device.broadcastChannel)
        let (entries, created) = try await transaction { connection -> ([TimerEntry], Bool) in
            guard try await connection.row("SELECT 1 FROM app WHERE id = \(device.appID) FOR KEY SHARE", logger: self.logger) != nil else {
                throw HeraldError.appNotFound(device.appID)
            }
            let previousZone = try await connection.row("""
                SELECT time_zone FROM device WHERE app_id = \(device.appID) AND id = \(device.id) FOR NO KEY UPDATE
                """, logger: self.logger)?.value(0, as: String.self)
            let created = try await connection.row("""
                INSERT INTO device (app_id, id, time_zone, token, voip_token, locale, state, background_modes,
                    platform, fcm_token, web_push, push_to_start_tokens, broadcast_channel, created_at, updated_at)
                VALUES (\(device.appID), \(device.id), \(device.timeZone), \(device.token), \(device.voipToken),
                    \(device.locale), \(device.state.rawValue), \(modes), \(device.platform.rawValue), \(device.fcmToken),
                    \(webPush), \(pushToStart), \(channel), \(at), \(at))
                ON CONFLICT (app_id, id) DO UPDATE SET time_zone = excluded.time_zone, token = excluded.token,
                    voip_token = excluded.voip_token, locale = excluded.locale, state = excluded.state,
                    background_modes = excluded.background_modes, platform = excluded.platform,
                    fcm_token = excluded.fcm_token, web_push = excluded.web_push,
                    push_to_start_tokens = excluded.push_to_start_tokens, broadcast_channel = excluded.broadcast_channel,
                    updated_at = excluded.updated_at
                RETURNING (xmax = 0)
                """, logger: self.logger)?.value(0, as: Bool.self) ?? false
            // Registering a token again means the app got it anew from the OS: it is valid again,
            // and an APNs refusal timestamped before now cannot kill it.
            for token in device.registeredAddresses {
                try await connection.run("DELETE FROM invalid_token WHERE app_id = \(device.appID) AND token = \(token)",
                                         logger: self.logger)
                try await connection.run("""
                    INSERT INTO token_registration (app_id, token, registered_at) VALUES (\(device.appID), \(token), \(at))
                    ON CONFLICT (app_id, token) DO UPDATE
                        SET registered_at = greatest(token_registration.registered_at, excluded.registered_at)
                    """, logger: self.logger)
            }
            var entries: [TimerEntry] = []
            if let previousZone, previousZone != device.timeZone {
                entries = try await self.retimeFloating(connection, device: device, now: now)
            }
            try await self.announce(entries, on: connection)
            return (entries, created)
        }
        return DeviceSaveResult(created: created, rearmed: entries)
    }

    public func device(appID: String, id: String) async throws -> Device? {
        try await read { connection in
            try await connection.row("""
                SELECT \(unescaped: Self.deviceColumns) FROM device d WHERE d.app_id = \(appID) AND d.id = \(id)
                """, logger: self.logger).map { try Self.device(from: $0) }
        }
    }

    public func deleteDevice(appID: String, id: String) async throws -> Bool {
        try await transaction { connection in
            try await connection.count("DELETE FROM device WHERE app_id = \(appID) AND id = \(id) RETURNING 1",
                                       logger: self.logger) > 0
        }
    }

    // MARK: Live Activities and broadcast channels

    public func saveActivity(appID: String, deviceID: String, activity: String, token: LiveActivityToken,
                             now: Date) async throws -> Bool? {
        let at = now.millisecondsSince1970
        return try await transaction { connection -> Bool? in
            // Locked, read and written in one transaction: two activities registered at once both stay.
            guard let row = try await connection.row("""
                SELECT activities FROM device WHERE app_id = \(appID) AND id = \(deviceID) FOR NO KEY UPDATE
                """, logger: self.logger) else { return nil }
            var activities: [String: LiveActivityToken] = try DeviceJSON.decode(try row.value(0, as: String?.self)) ?? [:]
            let created = activities.updateValue(token, forKey: activity) == nil
            let text = try DeviceJSON.encode(activities)
            try await connection.run("""
                UPDATE device SET activities = \(text), updated_at = \(at) WHERE app_id = \(appID) AND id = \(deviceID)
                """, logger: self.logger)
            try await connection.run("DELETE FROM invalid_token WHERE app_id = \(appID) AND token = \(token.token)",
                                     logger: self.logger)
            try await connection.run("""
                INSERT INTO token_registration (app_id, token, registered_at) VALUES (\(appID), \(token.token), \(at))
                ON CONFLICT (app_id, token) DO UPDATE
                    SET registered_at = greatest(token_registration.registered_at, excluded.registered_at)
                """, logger: self.logger)
            return created
        }
    }

    public func forgetActivity(appID: String, deviceID: String, activity: String) async throws -> Bool {
        try await transaction { connection in
            guard let row = try await connection.row("""
                SELECT activities FROM device WHERE app_id = \(appID) AND id = \(deviceID) FOR NO KEY UPDATE
                """, logger: self.logger) else { return false }
            var activities: [String: LiveActivityToken] = try DeviceJSON.decode(try row.value(0, as: String?.self)) ?? [:]
            guard activities.removeValue(forKey: activity) != nil else { return false }
            let text = try DeviceJSON.encode(activities.isEmpty ? nil : activities)
            try await connection.run("UPDATE device SET activities = \(text) WHERE app_id = \(appID) AND id = \(deviceID)",
                                     logger: self.logger)
            return true
        }
    }

    public func createChannel(_ channel: BroadcastChannel, appID: String, now: Date) async throws -> Bool {
        let at = now.millisecondsSince1970
        let text = try DeviceJSON.encode(channel)
        let audience = BroadcastChannel.audienceID(name: channel.name)
        let state = LifecycleState.notRunning.rawValue
        return try await transaction { connection in
            guard try await connection.row("SELECT 1 FROM app WHERE id = \(appID) FOR KEY SHARE", logger: self.logger) != nil else {
                throw HeraldError.appNotFound(appID)
            }
            return try await connection.count("""
                INSERT INTO device (app_id, id, time_zone, state, background_modes, broadcast_channel, created_at, updated_at)
                VALUES (\(appID), \(audience), 'UTC', \(state), '', \(text), \(at), \(at))
                ON CONFLICT (app_id, id) DO NOTHING RETURNING 1
                """, logger: self.logger) > 0
        }
    }

    public func channels(appID: String) async throws -> [BroadcastChannel] {
        try await read { connection in
            try await connection.rows("""
                SELECT broadcast_channel FROM device WHERE app_id = \(appID) AND broadcast_channel IS NOT NULL ORDER BY id
                """, logger: self.logger).compactMap { try DeviceJSON.decode(try $0.value(0, as: String?.self)) }
        }
    }

    /// Re-times a device's floating notifications after its zone changed, each as
    /// ``LocalNotification/resumed(inDeviceZone:now:)`` says.
    func retimeFloating(_ connection: PostgresConnection, device: Device, now: Date) async throws -> [TimerEntry] {
        guard let zone = TimeZone(identifier: device.timeZone) else { return [] }
        let rows = try await connection.rows("""
            SELECT \(unescaped: Self.notificationColumns), n.key FROM notification n
            WHERE n.app_id = \(device.appID) AND n.device_id = \(device.id) AND n.time_zone = \(FireTimeZone.floatingName)
            FOR UPDATE
            """, logger: self.logger)
        var armed: [TimerEntry] = []
        for row in rows {
            let notification = try Self.notification(from: row)
            let key = try row.value(Self.notificationColumnCount, as: Int64.self)
            guard let next = notification.resumed(inDeviceZone: zone, now: now) else {
                try await connection.run("DELETE FROM notification WHERE key = \(key)", logger: self.logger)
                continue
            }
            let fireAt = next.date.millisecondsSince1970
            try await connection.run("""
                UPDATE notification SET next_index = \(next.index), next_fire_at = \(fireAt), revision = revision + 1
                WHERE key = \(key)
                """, logger: self.logger)
            armed.append(TimerEntry(fireAt: fireAt, key: key))
        }
        return armed
    }

    // MARK: Notifications

    public func notifications(appID: String, deviceID: String) async throws -> [LocalNotification] {
        try await read { connection in
            try await connection.rows("""
                SELECT \(unescaped: Self.notificationColumns) FROM notification n
                WHERE app_id = \(appID) AND device_id = \(deviceID) ORDER BY next_fire_at, key
                """, logger: self.logger).map(Self.notification(from:))
        }
    }

    public func notification(appID: String, deviceID: String, id: String) async throws -> LocalNotification? {
        try await read { connection in
            try await connection.row("""
                SELECT \(unescaped: Self.notificationColumns) FROM notification n
                WHERE app_id = \(appID) AND device_id = \(deviceID) AND id = \(id)
                """, logger: self.logger).map(Self.notification(from:))
        }
    }

    public func cancel(appID: String, deviceID: String, id: String) async throws -> Bool {
        try await transaction { connection in
            try await connection.count("""
                DELETE FROM notification WHERE app_id = \(appID) AND device_id = \(deviceID) AND id = \(id) RETURNING 1
                """, logger: self.logger) > 0
        }
    }

    public func cancelAll(appID: String, deviceID: String) async throws -> Int {
        try await transaction { connection in
            try await connection.count("""
                DELETE FROM notification WHERE app_id = \(appID) AND device_id = \(deviceID) RETURNING 1
                """, logger: self.logger)
        }
    }

    // MARK: Delivery records

    public func recordDeliveries(_ deliveries: [Delivery]) async throws {
        guard !deliveries.isEmpty else { return }
        try await transaction { connection in
            for delivery in deliveries {
                // Held in the inbox on the way, it already has its row (the inbox item): the
                // outcome goes there, so the presentation is listed once.
                try await connection.run("""
                    WITH held AS (
                        UPDATE delivery SET channel = \(delivery.channel.rawValue), outcome = \(delivery.outcome.rawValue),
                            apns_status = \(delivery.apnsStatus), apns_id = \(delivery.apnsID)
                        WHERE key = (
                            SELECT max(key) FROM (
                                SELECT key FROM delivery WHERE app_id = \(delivery.appID) AND device_id = \(delivery.deviceID)
                                    AND occurrence_id = \(delivery.occurrenceID) AND notification_key IS NULL
                                    AND outcome = 'pending' AND \(unescaped: Self.inInbox)
                                UNION ALL
                                SELECT key FROM delivery WHERE app_id = \(delivery.appID) AND device_id = \(delivery.deviceID)
                                    AND occurrence_id = \(delivery.occurrenceID) AND notification_key IS NULL
                                    AND outcome = 'pending' AND inbox_seq IS NOT NULL AND inbox_acknowledged
                            ) AS presented)
                        RETURNING 1
                    )
                    INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                        missed, channel, outcome, apns_status, apns_id)
                    SELECT \(delivery.occurrenceID), \(delivery.appID), \(delivery.deviceID), \(delivery.notificationID),
                        \(delivery.scheduledFor.millisecondsSince1970), \(delivery.firedAt.millisecondsSince1970),
                        \(delivery.late), \(delivery.missed), \(delivery.channel.rawValue), \(delivery.outcome.rawValue),
                        \(delivery.apnsStatus), \(delivery.apnsID)
                    WHERE NOT EXISTS (SELECT 1 FROM held)
                    """, logger: self.logger)
            }
        }
    }

    public func deliveries(appID: String, deviceID: String, limit: Int) async throws -> [Delivery] {
        try await deliveries(appID: appID, deviceID: deviceID, before: nil, limit: limit).items
    }

    // MARK: Tokens

    public func invalidateToken(_ invalid: InvalidToken, feedback: FeedbackEvent) async throws -> Bool {
        let payload = try Self.json(feedback.payload)
        let invalidated = try await transaction { connection -> Bool in
            // APNs' timestamp says when it last knew the token was dead; a device that registered
            // the token after that has a fresh, valid one.
            if let since = invalid.apnsTimestamp,
               let registered = try await connection.row("""
                   SELECT registered_at FROM token_registration WHERE app_id = \(invalid.appID) AND token = \(invalid.token)
                   """, logger: self.logger)?.value(0, as: Int64.self),
               registered > since {
                return false
            }
            try await connection.run("""
                INSERT INTO invalid_token (app_id, token, reason, apns_timestamp, invalidated_at)
                VALUES (\(invalid.appID), \(invalid.token), \(invalid.reason), \(invalid.apnsTimestamp),
                    \(invalid.invalidatedAt.millisecondsSince1970))
                ON CONFLICT (app_id, token) DO UPDATE SET reason = excluded.reason,
                    apns_timestamp = excluded.apns_timestamp, invalidated_at = excluded.invalidated_at
                """, logger: self.logger)
            try await connection.run("""
                INSERT INTO feedback_event (type, app_id, payload, created_at)
                VALUES (\(feedback.type.rawValue), \(feedback.appID), \(payload), \(feedback.createdAt.millisecondsSince1970))
                """, logger: self.logger)
            return true
        }
        if invalidated { feedbackRaised() }
        return invalidated
    }

    public func invalidToken(appID: String, token: String) async throws -> InvalidToken? {
        try await read { connection in
            try await connection.row("""
                SELECT reason, apns_timestamp, invalidated_at FROM invalid_token WHERE app_id = \(appID) AND token = \(token)
                """, logger: self.logger).map { row in
                InvalidToken(appID: appID, token: token, reason: try row.value(0), apnsTimestamp: try row.value(1),
                             invalidatedAt: Date(millisecondsSince1970: try row.value(2)))
            }
        }
    }

    public func invalidTokens(appID: String, among tokens: Set<String>) async throws -> Set<String> {
        guard !tokens.isEmpty else { return [] }
        return try await read { connection in
            Set(try await connection.rows("""
                SELECT token FROM invalid_token WHERE app_id = \(appID) AND token = ANY(\(Array(tokens)))
                """, logger: self.logger).map { try $0.value(0, as: String.self) })
        }
    }
}

// MARK: Bulk loading (benchmarks and imports)

extension PostgresStore {
    /// Inserts many notifications in one transaction without the per-device limit check; the
    /// caller guarantees the limit. Used to prepare large data sets quickly, as
    /// `SQLiteStore.bulkInsert` is. Other nodes learn of them at their next start or sweep.
    public func bulkInsert(_ notifications: [LocalNotification]) async throws {
        guard !notifications.isEmpty else { return }
        let binds = notifications.map(ScheduleBinds.init)
        // Arrays cannot hold NULLs here: "" and -1 stand for none.
        let contents = try notifications.map { try Self.json($0.content) }
        let columns: (apps: [String], devices: [String], ids: [String], fireDates: [String], zones: [String],
                      units: [String], every: [Int64], counts: [Int64], untilTexts: [String], untilAts: [Int64],
                      indexes: [Int64], fireAts: [Int64]) = (
            notifications.map(\.appID), notifications.map(\.deviceID), notifications.map(\.id), binds.map(\.fireDate),
            binds.map { $0.timeZone ?? "" }, binds.map { $0.unit ?? "" }, binds.map { Int64($0.every ?? -1) },
            binds.map { Int64($0.count ?? -1) }, binds.map { $0.untilText ?? "" }, binds.map { $0.untilAt ?? -1 },
            notifications.map { Int64($0.nextIndex) }, notifications.map(\.nextFireDate.millisecondsSince1970))
        let now = Date().millisecondsSince1970
        try await transaction { connection in
            try await connection.run("""
                INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, repeat_unit, repeat_every,
                    repeat_count, repeat_until, repeat_until_at, content, next_index, next_fire_at, revision, created_at)
                SELECT a, d, i, f, nullif(z, ''), nullif(u, ''), nullif(e, -1), nullif(c, -1), nullif(t, ''),
                    nullif(ta, -1), x, n, nf, 1, \(now)
                FROM unnest(\(columns.apps)::text[], \(columns.devices)::text[], \(columns.ids)::text[],
                    \(columns.fireDates)::text[], \(columns.zones)::text[], \(columns.units)::text[],
                    \(columns.every)::bigint[], \(columns.counts)::bigint[], \(columns.untilTexts)::text[],
                    \(columns.untilAts)::bigint[], \(contents)::text[], \(columns.indexes)::bigint[],
                    \(columns.fireAts)::bigint[]) AS r(a, d, i, f, z, u, e, c, t, ta, x, n, nf)
                """, logger: self.logger)
        }
    }
}
