import Foundation
import HeraldCore
import HeraldDirectory

/// The `repeat` object of a notification request and response.
struct RepeatBody: Codable {
    var unit: String?
    var every: Int?
    var count: Int?
    var until: String?
}

/// The content fields shared by scheduling and presenting.
struct AlertBody: Codable {
    var title: String?
    var subtitle: String?
    var body: String?
}

/// `POST .../notifications` and `POST .../present` body.
struct NotificationBody: Decodable {
    var id: String?
    var fireDate: String?
    var timeZone: String?
    var `repeat`: RepeatBody?
    var alert: AlertBody?
    var sound: String?
    var badge: Int?
    var category: String?
    var threadId: String?
    var userInfo: [String: JSONValue]?
    var liveActivity: LiveActivityBody?

    /// The largest badge number iOS shows.
    static let maximumBadge = 99_999

    /// Validates the content part for a device on `platform`.
    func content(for platform: Platform, notificationID: String) throws(HeraldError) -> NotificationContent {
        if let liveActivity { return try activityContent(liveActivity, for: .device, platform: platform, notificationID: notificationID) }
        guard let alert else { throw .invalid(.missingAlert, "alert is required, with at least a body (or liveActivity instead)") }
        guard let body = alert.body, !body.isEmpty else {
            throw .invalid(.missingAlert, "alert.body is required and must not be empty")
        }
        if let badge, !(0...Self.maximumBadge).contains(badge) {
            throw .invalid(.invalidBadge, "badge must be between 0 and \(Self.maximumBadge)")
        }
        if let sound, sound.isEmpty || sound.utf8.count > 256 {
            throw .invalid(.invalidSound, "sound must be a file name of 1–256 bytes, or \"default\"")
        }
        let content = NotificationContent(alert: .init(title: alert.title, subtitle: alert.subtitle, body: body),
                                          sound: sound, badge: badge, category: category, threadId: threadId,
                                          userInfo: userInfo)
        // The alert push it becomes must fit, checked now rather than when it fires.
        try content.checkFits(platform, notificationID: notificationID)
        return content
    }

    /// Validates the content part for a broadcast channel's audience: a Live Activity update or end.
    func broadcastContent(notificationID: String) throws(HeraldError) -> NotificationContent {
        guard let liveActivity else {
            throw .invalid(.missingLiveActivity, "a broadcast carries liveActivity (an update or end), not an alert")
        }
        return try activityContent(liveActivity, for: .channel, platform: .ios, notificationID: notificationID)
    }

    private func activityContent(_ body: LiveActivityBody, for audience: LiveActivity.Audience, platform: Platform,
                                 notificationID: String) throws(HeraldError) -> NotificationContent {
        guard alert == nil, sound == nil, badge == nil, category == nil, threadId == nil else {
            throw .invalid(.alertOrLiveActivity,
                           "a notification has alert (with sound, badge, category, threadId) or liveActivity, not both")
        }
        let content = NotificationContent(liveActivity: try body.liveActivity(for: audience), userInfo: userInfo)
        try content.checkFits(platform, notificationID: notificationID)
        return content
    }

    /// The notification id: the given one, checked, or a new UUID.
    func notificationID() throws(HeraldError) -> String {
        guard let id else { return UUID().uuidString.lowercased() }
        try Identifier.validate(id, field: "id")
        return id
    }

    /// Validates the schedule part; `deviceTimeZone` reads a floating notification's wall-clock `until`.
    func schedule(deviceTimeZone: TimeZone) throws(HeraldError) -> NotificationSchedule {
        guard let fireDate else { throw .invalid(.missingField, "fireDate is required") }
        return try NotificationSchedule(fireDate: fireDate, timeZone: timeZone, repeatUnit: `repeat`?.unit,
                                        every: `repeat`?.every, count: `repeat`?.count, until: `repeat`?.until,
                                        deviceTimeZone: deviceTimeZone)
    }
}

/// A notification as the API shows it.
struct NotificationResource: Encodable {
    var id: String
    var app: String
    var device: String
    var fireDate: String
    var timeZone: String?
    var `repeat`: RepeatBody?
    var alert: AlertBody?
    var liveActivity: LiveActivityBody?
    var sound: String?
    var badge: Int?
    var category: String?
    var threadId: String?
    var userInfo: [String: JSONValue]?
    var nextFireDate: String
    var nextOccurrence: Int
    var occurrences: [String]?

    init(_ notification: LocalNotification, occurrences: [Date]? = nil) {
        id = notification.id
        app = notification.appID
        device = notification.deviceID
        fireDate = notification.fireDate.fieldValue
        timeZone = notification.timeZone.fieldValue
        if let rule = notification.repeatRule {
            var body = RepeatBody(unit: rule.unit.rawValue, every: rule.every)
            switch rule.end {
            case .count(let count)?: body.count = count
            case .until(let date)?: body.until = RFC3339.string(from: date)
            case .untilWallClock(let local)?: body.until = local.description
            case nil: break
            }
            self.repeat = body
        }
        let content = notification.content
        alert = content.alert.map { AlertBody(title: $0.title, subtitle: $0.subtitle, body: $0.body) }
        liveActivity = content.liveActivity.map(LiveActivityBody.init)
        sound = content.sound
        badge = content.badge
        category = content.category
        threadId = content.threadId
        userInfo = content.userInfo
        nextFireDate = RFC3339.string(from: notification.nextFireDate)
        nextOccurrence = notification.nextIndex
        self.occurrences = occurrences.map { $0.map(RFC3339.string(from:)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(app, forKey: .app)
        try container.encode(device, forKey: .device)
        try container.encode(fireDate, forKey: .fireDate)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(`repeat`, forKey: .repeat)
        if let liveActivity {
            try container.encode(liveActivity, forKey: .liveActivity)
        } else {
            try container.encode(alert, forKey: .alert)
        }
        try container.encodeIfPresent(sound, forKey: .sound)
        try container.encodeIfPresent(badge, forKey: .badge)
        try container.encodeIfPresent(category, forKey: .category)
        try container.encodeIfPresent(threadId, forKey: .threadId)
        try container.encodeIfPresent(userInfo, forKey: .userInfo)
        try container.encode(nextFireDate, forKey: .nextFireDate)
        try container.encode(nextOccurrence, forKey: .nextOccurrence)
        try container.encodeIfPresent(occurrences, forKey: .occurrences)
    }

    enum CodingKeys: String, CodingKey {
        case id, app, device, fireDate, timeZone, `repeat`, alert, liveActivity, sound, badge, category, threadId, userInfo
        case nextFireDate, nextOccurrence, occurrences
    }
}

/// The answer to scheduling: the stored notification plus what the overflow policy evicted.
struct ScheduledResource: Encodable {
    var notification: NotificationResource?
    var stored: Bool
    var replaced: Bool
    var evicted: [String]

    func encode(to encoder: any Encoder) throws {
        // The notification's fields sit at the top level, beside the scheduling facts.
        try notification?.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(stored, forKey: .stored)
        try container.encode(replaced, forKey: .replaced)
        try container.encode(evicted, forKey: .evicted)
    }

    enum CodingKeys: String, CodingKey { case stored, replaced, evicted }
}
