import Foundation
import HeraldCore
import HeraldStorage
import Logging
import PostgresNIO

extension PostgresConnection {
    /// Every row `query` returns, read whole.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var rows: [PostgresRandomAccessRow] = []
        for try await row in try await self.query(query, logger: logger) { rows.append(row.makeRandomAccess()) }
        return rows
    }

    /// The first row `query` returns, if any.
    func row(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRandomAccessRow? {
        try await rows(query, logger: logger).first
    }

    /// Runs a statement whose rows do not matter.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }

    /// How many rows a statement touched. The statement ends in `RETURNING 1`: postgres-nio does
    /// not surface the command tag's count.
    func count(_ query: PostgresQuery, logger: Logger) async throws -> Int {
        try await rows(query, logger: logger).count
    }
}

extension PostgresRandomAccessRow {
    /// The value in column `index`, decoded as `type` (an optional type reads NULL as nil).
    func value<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        try self[index].decode(T.self)
    }
}

/// Mapping between PostgreSQL rows and domain values, apart from the queries.
extension PostgresStore {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static let deviceColumns = """
        d.app_id, d.id, d.time_zone, d.token, d.voip_token, d.locale, d.state, d.background_modes, d.platform, d.fcm_token,
        d.web_push, d.push_to_start_tokens, d.activities, d.broadcast_channel
        """.replacingOccurrences(of: "\n", with: " ")
    static let deviceColumnCount = 14
    static let appColumns = "id, overflow, push, custom_kinds, fcm, web_push"
    static let notificationColumns = """
        n.app_id, n.device_id, n.id, n.fire_date, n.time_zone, n.repeat_unit, n.repeat_every, n.repeat_count,
        n.repeat_until, n.repeat_until_at, n.content, n.next_index, n.next_fire_at
        """.replacingOccurrences(of: "\n", with: " ")
    static let notificationColumnCount = 13
    static let deliveryColumns = """
        occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late, missed, channel, outcome,
        apns_status, apns_id
        """.replacingOccurrences(of: "\n", with: " ")

    static func app(from row: PostgresRandomAccessRow) throws -> App {
        let push = try row.value(2, as: String?.self).map { try JSONDecoder().decode(PushSettings.self, from: Data($0.utf8)) }
        let customKinds = try DeviceJSON.customKinds(try row.value(3, as: String?.self))
        let fcm = try row.value(4, as: String?.self).map { try JSONDecoder().decode(FCMSettings.self, from: Data($0.utf8)) }
        let webPush = try row.value(5, as: String?.self)
            .map { try JSONDecoder().decode(WebPushSettings.self, from: Data($0.utf8)) }
        return App(id: try row.value(0), overflow: OverflowPolicy(rawValue: try row.value(1)) ?? .reject, push: push,
                   customKinds: customKinds, fcm: fcm, webPush: webPush)
    }

    static func device(from row: PostgresRandomAccessRow, offset: Int = 0) throws -> Device {
        Device(appID: try row.value(offset), id: try row.value(offset + 1), timeZone: try row.value(offset + 2),
               token: try row.value(offset + 3), voipToken: try row.value(offset + 4), locale: try row.value(offset + 5),
               state: LifecycleState(rawValue: try row.value(offset + 6)) ?? .notRunning,
               backgroundModes: try row.value(offset + 7, as: String.self).split(separator: ",").map(String.init),
               platform: Platform(rawValue: try row.value(offset + 8, as: String.self)) ?? .ios,
               fcmToken: try row.value(offset + 9),
               webPush: try DeviceJSON.decode(try row.value(offset + 10, as: String?.self)),
               pushToStartTokens: try DeviceJSON.decode(try row.value(offset + 11, as: String?.self)) ?? [:],
               activities: try DeviceJSON.decode(try row.value(offset + 12, as: String?.self)) ?? [:],
               broadcastChannel: try DeviceJSON.decode(try row.value(offset + 13, as: String?.self)))
    }

    /// The schedule of a row read with ``notificationColumns``, without decoding its content.
    static func schedule(from row: PostgresRandomAccessRow) throws -> NotificationSchedule {
        var until: ScheduleColumns.RepeatUntil?
        if let milliseconds = try row.value(9, as: Int64?.self) {
            until = .instant(milliseconds)
        } else if let text = try row.value(8, as: String?.self) {
            until = .wallClock(text)
        }
        return try ScheduleColumns(fireDate: try row.value(3), timeZone: try row.value(4), repeatUnit: try row.value(5),
                                   repeatEvery: try row.value(6), repeatCount: try row.value(7), repeatUntil: until)
            .schedule()
    }

    static func notification(from row: PostgresRandomAccessRow) throws -> LocalNotification {
        let schedule = try schedule(from: row)
        let content = try JSONDecoder().decode(NotificationContent.self, from: Data(try row.value(10, as: String.self).utf8))
        return LocalNotification(appID: try row.value(0), deviceID: try row.value(1), id: try row.value(2),
                                 fireDate: schedule.fireDate, timeZone: schedule.timeZone, repeatRule: schedule.repeatRule,
                                 content: content, nextIndex: try row.value(11),
                                 nextFireDate: Date(millisecondsSince1970: try row.value(12)))
    }

    static func delivery(from row: PostgresRandomAccessRow) throws -> Delivery {
        Delivery(occurrenceID: try row.value(0), appID: try row.value(1), deviceID: try row.value(2),
                 notificationID: try row.value(3), scheduledFor: Date(millisecondsSince1970: try row.value(4)),
                 firedAt: Date(millisecondsSince1970: try row.value(5)), late: try row.value(6), missed: try row.value(7),
                 channel: DeliveryRoute(stored: try row.value(8)), outcome: DeliveryResult(stored: try row.value(9)), apnsStatus: try row.value(10),
                 apnsID: try row.value(11))
    }

    /// The bindable schedule columns: wall-clock ends in `repeat_until`, instants in `repeat_until_at`.
    struct ScheduleBinds {
        var fireDate: String
        var timeZone: String?
        var unit: String?
        var every: Int?
        var count: Int?
        var untilText: String?
        var untilAt: Int64?

        init(_ notification: LocalNotification) {
            let columns = ScheduleColumns(notification)
            fireDate = columns.fireDate
            timeZone = columns.timeZone
            unit = columns.repeatUnit
            every = columns.repeatEvery
            count = columns.repeatCount
            switch columns.repeatUntil {
            case .instant(let milliseconds)?: untilAt = milliseconds
            case .wallClock(let text)?: untilText = text
            case nil: break
            }
        }
    }
}
