import Foundation

/// Which clock a notification's fire date is read on.
public enum FireTimeZone: Hashable, Sendable {
    /// The fire date is an absolute instant (it carried `Z` or an offset).
    case absolute
    /// The fire date is wall-clock time in this IANA zone, wherever the device is.
    case fixed(String)
    /// The fire date is wall-clock time in the device's current zone, and moves with it.
    case floating

    public static let floatingName = "floating"

    /// The `timeZone` field as clients send it: null, an IANA id, or `"floating"`.
    public var fieldValue: String? {
        switch self {
        case .absolute: return nil
        case .fixed(let identifier): return identifier
        case .floating: return Self.floatingName
        }
    }

    public init(fieldValue: String?) {
        switch fieldValue {
        case nil: self = .absolute
        case Self.floatingName?: self = .floating
        case let identifier?: self = .fixed(identifier)
        }
    }
}

/// A notification's fire date as the client gave it.
public enum FireDate: Hashable, Sendable {
    case instant(Date)
    case wallClock(LocalDateTime)

    /// The text form: RFC 3339 for instants, `YYYY-MM-DDTHH:MM:SS` for wall-clock times.
    public var fieldValue: String {
        switch self {
        case .instant(let date): return RFC3339.string(from: date)
        case .wallClock(let local): return local.description
        }
    }
}

/// What the user sees when an occurrence is presented: an alert, or a change to a Live Activity.
public struct NotificationContent: Codable, Hashable, Sendable {
    public struct Alert: Codable, Hashable, Sendable {
        public var title: String?
        public var subtitle: String?
        public var body: String

        public init(title: String? = nil, subtitle: String? = nil, body: String) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
        }
    }

    /// The alert; nil when the notification drives a Live Activity instead.
    public var alert: Alert?
    public var sound: String?
    public var badge: Int?
    public var category: String?
    public var threadId: String?
    public var userInfo: [String: JSONValue]?
    /// A Live Activity start, update or end, sent as a `liveactivity` push.
    public var liveActivity: LiveActivity?

    public init(alert: Alert, sound: String? = nil, badge: Int? = nil, category: String? = nil,
                threadId: String? = nil, userInfo: [String: JSONValue]? = nil) {
        self.alert = alert
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.userInfo = userInfo
    }

    /// A Live Activity push, with custom keys beside `aps`.
    public init(liveActivity: LiveActivity, userInfo: [String: JSONValue]? = nil) {
        self.liveActivity = liveActivity
        self.userInfo = userInfo
    }
}

/// A scheduled local notification on one device: its schedule, its content, and where it is in
/// its series.
public struct LocalNotification: Hashable, Sendable {
    public var appID: String
    public var deviceID: String
    public var id: String
    public var fireDate: FireDate
    public var timeZone: FireTimeZone
    public var repeatRule: RepeatRule?
    public var content: NotificationContent
    /// Index of the next occurrence to fire.
    public var nextIndex: Int
    public var nextFireDate: Date

    public init(appID: String, deviceID: String, id: String, fireDate: FireDate, timeZone: FireTimeZone,
                repeatRule: RepeatRule?, content: NotificationContent, nextIndex: Int, nextFireDate: Date) {
        self.appID = appID
        self.deviceID = deviceID
        self.id = id
        self.fireDate = fireDate
        self.timeZone = timeZone
        self.repeatRule = repeatRule
        self.content = content
        self.nextIndex = nextIndex
        self.nextFireDate = nextFireDate
    }

    /// The fire date, zone and repeat rule, as a schedule.
    public var schedule: NotificationSchedule {
        NotificationSchedule(fireDate: fireDate, timeZone: timeZone, repeatRule: repeatRule)
    }

    /// The series this notification fires on, read in `deviceTimeZone` when it is floating.
    public func recurrence(deviceTimeZone: TimeZone) -> Recurrence {
        schedule.recurrence(deviceTimeZone: deviceTimeZone)
    }
}
