import Foundation
import GRDB
import HeraldCore

/// Mapping between rows and domain values, kept apart from the queries that use them.
extension SQLiteStore {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static let deviceColumns = """
        app_id, id, time_zone, token, voip_token, locale, state, background_modes, platform, fcm_token, web_push,
        push_to_start_tokens, activities, broadcast_channel
        """.replacingOccurrences(of: "\n", with: " ")
    static let deviceColumnsAliased = aliased(deviceColumns, as: "d")
    static let deviceColumnCount = columnCount(deviceColumns)
    static let appColumns = "id, overflow, push, custom_kinds, fcm, web_push"
    static let appColumnsAliased = aliased(appColumns, as: "a")
    static let appColumnCount = columnCount(appColumns)

    /// `columns` (a list of plain names) each prefixed with `alias`, for a join: one list to change.
    private static func aliased(_ columns: String, as alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }.joined(separator: ", ")
    }

    private static func columnCount(_ columns: String) -> Int { columns.split(separator: ",").count }

    static let notificationColumns = """
        n.app_id, n.device_id, n.id, n.fire_date, n.time_zone, n.repeat_unit, n.repeat_every, n.repeat_count,
        n.repeat_until, n.content, n.next_index, n.next_fire_at
        """.replacingOccurrences(of: "\n", with: " ")
    static let notificationColumnCount = 12
    static let deliveryColumns = """
        occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late, missed, channel, outcome,
        apns_status, apns_id
        """
    static let deliveryColumnCount = 12

    static func app(from row: Row) throws -> App {
        let push = try (row[2] as String?).map { try JSONDecoder().decode(PushSettings.self, from: Data($0.utf8)) }
        let customKinds = try DeviceJSON.customKinds(row[3])
        let fcm = try (row[4] as String?).map { try JSONDecoder().decode(FCMSettings.self, from: Data($0.utf8)) }
        let webPush = try (row[5] as String?).map { try JSONDecoder().decode(WebPushSettings.self, from: Data($0.utf8)) }
        return App(id: row[0], overflow: OverflowPolicy(rawValue: row[1]) ?? .reject, push: push, customKinds: customKinds,
                   fcm: fcm, webPush: webPush)
    }

    static func device(from row: Row, offset: Int = 0) throws -> Device {
        let webPush = try (row[offset + 10] as String?).map {
            try JSONDecoder().decode(WebPushSubscription.self, from: Data($0.utf8))
        }
        return Device(appID: row[offset], id: row[offset + 1], timeZone: row[offset + 2], token: row[offset + 3],
                      voipToken: row[offset + 4], locale: row[offset + 5],
                      state: LifecycleState(rawValue: row[offset + 6]) ?? .notRunning,
                      backgroundModes: (row[offset + 7] as String).split(separator: ",").map(String.init),
                      platform: Platform(rawValue: row[offset + 8]) ?? .ios, fcmToken: row[offset + 9], webPush: webPush,
                      pushToStartTokens: try DeviceJSON.decode(row[offset + 11]) ?? [:],
                      activities: try DeviceJSON.decode(row[offset + 12]) ?? [:],
                      broadcastChannel: try DeviceJSON.decode(row[offset + 13]))
    }

    static func notification(from row: Row) throws -> LocalNotification {
        let schedule = try Self.schedule(from: row)
        let contentText: String = row[9]
        let content = try JSONDecoder().decode(NotificationContent.self, from: Data(contentText.utf8))
        return LocalNotification(appID: row[0], deviceID: row[1], id: row[2], fireDate: schedule.fireDate,
                                 timeZone: schedule.timeZone, repeatRule: schedule.repeatRule,
                                 content: content, nextIndex: row[10],
                                 nextFireDate: Date(millisecondsSince1970: row[11]))
    }

    /// The schedule columns of a row read with ``notificationColumns``: all a firing decision
    /// needs, without decoding the content.
    static func schedule(from row: Row) throws -> NotificationSchedule {
        // repeat_until holds milliseconds, or for a floating notification's wall-clock end, its text.
        var until: ScheduleColumns.RepeatUntil?
        switch (row[8] as DatabaseValue).storage {
        case .int64(let milliseconds): until = .instant(milliseconds)
        case .string(let text): until = .wallClock(text)
        default: break
        }
        return try ScheduleColumns(fireDate: row[3], timeZone: row[4], repeatUnit: row[5], repeatEvery: row[6],
                                   repeatCount: row[7], repeatUntil: until).schedule()
    }

    static func delivery(from row: Row) -> Delivery {
        Delivery(occurrenceID: row[0], appID: row[1], deviceID: row[2], notificationID: row[3],
                 scheduledFor: Date(millisecondsSince1970: row[4]), firedAt: Date(millisecondsSince1970: row[5]),
                 late: row[6], missed: row[7], channel: DeliveryRoute(stored: row[8]), outcome: DeliveryResult(stored: row[9]), apnsStatus: row[10], apnsID: row[11])
    }

    static func insert(_ delivery: Delivery, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                missed, channel, outcome, apns_status, apns_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.execute(arguments: [
            delivery.occurrenceID, delivery.appID, delivery.deviceID, delivery.notificationID,
            delivery.scheduledFor.millisecondsSince1970, delivery.firedAt.millisecondsSince1970, delivery.late,
            delivery.missed, delivery.channel.rawValue, delivery.outcome.rawValue, delivery.apnsStatus, delivery.apnsID,
        ])
    }

    /// The stored columns of `notification`'s schedule, as SQLite binds them.
    static func scheduleArguments(_ notification: LocalNotification) -> [DatabaseValueConvertible?] {
        let columns = ScheduleColumns(notification)
        let until: DatabaseValue
        switch columns.repeatUntil {
        case .instant(let milliseconds)?: until = milliseconds.databaseValue
        case .wallClock(let text)?: until = text.databaseValue
        case nil: until = .null
        }
        return [columns.fireDate, columns.timeZone, columns.repeatUnit, columns.repeatEvery, columns.repeatCount, until]
    }

    /// Re-times a device's floating notifications after its zone changed, each as
    /// ``LocalNotification/resumed(inDeviceZone:now:)`` says.
    static func retimeFloating(_ db: Database, device: Device, now: Date) throws -> [TimerEntry] {
        guard let zone = TimeZone(identifier: device.timeZone) else { return [] }
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT \(notificationColumns), n.key FROM notification n
            WHERE n.app_id = ? AND n.device_id = ? AND n.time_zone = ?
            """), arguments: [device.appID, device.id, FireTimeZone.floatingName])
        var armed: [TimerEntry] = []
        for row in rows {
            let notification = try Self.notification(from: row)
            let key: Int64 = row[notificationColumnCount]
            guard let next = notification.resumed(inDeviceZone: zone, now: now) else {
                try db.cachedStatement(sql: "DELETE FROM notification WHERE key = ?").execute(arguments: [key])
                continue
            }
            let fireAt = next.date.millisecondsSince1970
            try db.cachedStatement(sql: """
                UPDATE notification SET next_index = ?, next_fire_at = ?, revision = revision + 1 WHERE key = ?
                """).execute(arguments: [next.index, fireAt, key])
            armed.append(TimerEntry(fireAt: fireAt, key: key))
        }
        return armed
    }
}

/// Storage found something it cannot read back.
public enum StorageError: Error, CustomStringConvertible {
    case corrupt(String)

    public var description: String {
        switch self {
        case .corrupt(let what): return "corrupt stored value: \(what)"
        }
    }
}
