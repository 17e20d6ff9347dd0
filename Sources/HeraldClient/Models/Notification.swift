import Foundation

/// A local notification as the server shows it: scheduled for one device (or, for a broadcast
/// channel, with device `channel:<name>`), with its next fire date.
public struct LocalNotification: Codable, Sendable, Hashable, Identifiable {
    /// The identifier.
    public var id: String
    /// The app's bundle id.
    public var app: String
    /// The device id.
    public var device: String
    /// As scheduled: an RFC 3339 instant, or a wall-clock `YYYY-MM-DDTHH:MM[:SS]` read in ``timeZone``.
    public var fireDate: String
    /// An IANA zone, `floating`, or nil for an instant.
    public var timeZone: String?
    /// How it repeats; nil: once.
    public var `repeat`: RepeatRule?
    /// The alert; nil for a Live Activity notification.
    public var alert: AlertContent?
    /// The Live Activity change it pushes instead of an alert.
    public var liveActivity: LiveActivity?
    /// A sound file name, or `default`.
    public var sound: String?
    /// The app icon's badge number (0–99999).
    public var badge: Int?
    /// The notification category (`UNNotificationCategory` identifier).
    public var category: String?
    /// The thread the notification groups under.
    public var threadId: String?
    /// Custom keys delivered with the notification.
    public var userInfo: [String: JSONValue]?
    /// When it fires next.
    public var nextFireDate: Date
    /// The index of the next occurrence (0 for the first).
    public var nextOccurrence: Int
    /// With `occurrences:` on ``HeraldClient/notification(app:device:id:occurrences:)``: the next fire dates.
    public var occurrences: [Date]?

    /// Creates a `LocalNotification` from its fields.
    public init(id: String, app: String, device: String, fireDate: String, timeZone: String? = nil, repeat: RepeatRule? = nil,
                alert: AlertContent? = nil, liveActivity: LiveActivity? = nil, sound: String? = nil, badge: Int? = nil,
                category: String? = nil, threadId: String? = nil, userInfo: [String: JSONValue]? = nil,
                nextFireDate: Date, nextOccurrence: Int = 0, occurrences: [Date]? = nil) {
        self.id = id
        self.app = app
        self.device = device
        self.fireDate = fireDate
        self.timeZone = timeZone
        self.repeat = `repeat`
        self.alert = alert
        self.liveActivity = liveActivity
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.userInfo = userInfo
        self.nextFireDate = nextFireDate
        self.nextOccurrence = nextOccurrence
        self.occurrences = occurrences
    }
}

/// What to schedule: when (``fireDate``, ``timeZone``, ``repeat``) and what (an ``alert`` with
/// its sound, badge, category and thread, or a ``liveActivity`` change).
///
/// ```swift
/// let daily = NotificationRequest(id: "standup", fireDate: "2035-06-01T09:00", timeZone: "Europe/Paris",
///                                 repeat: RepeatRule(unit: .day),
///                                 alert: AlertContent(title: "Stand-up", body: "In the big room"))
/// ```
public struct NotificationRequest: Codable, Sendable, Hashable {
    /// The notification's id; nil: the server makes a UUID. Scheduling an existing id replaces it.
    public var id: String?
    /// An RFC 3339 instant without ``timeZone``, or `YYYY-MM-DDTHH:MM[:SS]` with it.
    public var fireDate: String
    /// An IANA zone, or `floating` (the device's zone, whatever it becomes).
    public var timeZone: String?
    /// How it repeats; nil: once.
    public var `repeat`: RepeatRule?
    /// The alert text.
    public var alert: AlertContent?
    /// A Live Activity change instead of an alert.
    public var liveActivity: LiveActivity?
    /// A sound file name, or `default`.
    public var sound: String?
    /// The app icon's badge number (0–99999).
    public var badge: Int?
    /// The notification category (`UNNotificationCategory` identifier).
    public var category: String?
    /// The thread the notification groups under.
    public var threadId: String?
    /// Custom keys delivered with the notification.
    public var userInfo: [String: JSONValue]?

    /// A notification at a wall-clock time or RFC 3339 instant given as text.
    ///
    /// - parameter id: The id; nil: a new UUID.
    /// - parameter fireDate: An RFC 3339 instant, or `YYYY-MM-DDTHH:MM[:SS]` with `timeZone`.
    /// - parameter timeZone: An IANA zone or `floating`; nil for an instant.
    /// - parameter repeat: How it repeats; nil: once.
    /// - parameter alert: The alert (exactly one of alert and liveActivity).
    /// - parameter liveActivity: A Live Activity change instead of an alert (ios).
    public init(id: String? = nil, fireDate: String, timeZone: String? = nil, repeat: RepeatRule? = nil,
                alert: AlertContent? = nil, liveActivity: LiveActivity? = nil, sound: String? = nil, badge: Int? = nil,
                category: String? = nil, threadId: String? = nil, userInfo: [String: JSONValue]? = nil) {
        self.id = id
        self.fireDate = fireDate
        self.timeZone = timeZone
        self.repeat = `repeat`
        self.alert = alert
        self.liveActivity = liveActivity
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.userInfo = userInfo
    }

    /// A notification at an instant.
    ///
    /// - parameter id: The id; nil: a new UUID.
    /// - parameter fireDate: When it fires (first).
    /// - parameter repeat: How it repeats; nil: once.
    /// - parameter alert: The alert (exactly one of alert and liveActivity).
    /// - parameter liveActivity: A Live Activity change instead of an alert (ios).
    public init(id: String? = nil, fireDate: Date, repeat: RepeatRule? = nil, alert: AlertContent? = nil,
                liveActivity: LiveActivity? = nil, sound: String? = nil, badge: Int? = nil, category: String? = nil,
                threadId: String? = nil, userInfo: [String: JSONValue]? = nil) {
        self.init(id: id, fireDate: Timestamp.string(from: fireDate), repeat: `repeat`, alert: alert, liveActivity: liveActivity,
                  sound: sound, badge: badge, category: category, threadId: threadId, userInfo: userInfo)
    }
}

/// What `POST .../present` shows now: an alert, with its sound, badge, category and thread.
public struct PresentRequest: Codable, Sendable, Hashable {
    /// The identifier.
    public var id: String?
    /// The alert text.
    public var alert: AlertContent
    /// A sound file name, or `default`.
    public var sound: String?
    /// The app icon's badge number (0–99999).
    public var badge: Int?
    /// The notification category (`UNNotificationCategory` identifier).
    public var category: String?
    /// The thread the notification groups under.
    public var threadId: String?
    /// Custom keys delivered with the notification.
    public var userInfo: [String: JSONValue]?

    /// Creates a `PresentRequest` from its fields.
    public init(id: String? = nil, alert: AlertContent, sound: String? = nil, badge: Int? = nil, category: String? = nil,
                threadId: String? = nil, userInfo: [String: JSONValue]? = nil) {
        self.id = id
        self.alert = alert
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.userInfo = userInfo
    }
}

/// An alert's text. Scheduling needs a non-empty ``body``.
public struct AlertContent: Codable, Sendable, Hashable {
    /// The title.
    public var title: String?
    /// The subtitle.
    public var subtitle: String?
    /// The body text.
    public var body: String?

    /// Creates a `AlertContent` from its fields.
    public init(title: String? = nil, subtitle: String? = nil, body: String?) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }
}

/// How a notification repeats: every ``every`` ``unit``s, ending after ``count`` occurrences
/// or at ``until``.
public struct RepeatRule: Codable, Sendable, Hashable {
    /// The calendar unit.
    public var unit: Unit?
    /// Every how many units; nil: 1.
    public var every: Int?
    /// How many.
    public var count: Int?
    /// An RFC 3339 instant, or a wall-clock time for a zoned or floating notification.
    public var until: String?

    /// Creates a `RepeatRule` from its fields.
    public init(unit: Unit, every: Int? = nil, count: Int? = nil, until: String? = nil) {
        self.unit = unit
        self.every = every
        self.count = count
        self.until = until
    }

    /// The calendar unit a notification repeats by.
    public enum Unit: OpenEnum {
        case minute, hour, day, week, month, quarter, year
        case unknown(String)

        public init(rawValue: String) {
            switch rawValue {
            case "minute": self = .minute
            case "hour": self = .hour
            case "day": self = .day
            case "week": self = .week
            case "month": self = .month
            case "quarter": self = .quarter
            case "year": self = .year
            default: self = .unknown(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .minute: return "minute"
            case .hour: return "hour"
            case .day: return "day"
            case .week: return "week"
            case .month: return "month"
            case .quarter: return "quarter"
            case .year: return "year"
            case .unknown(let value): return value
            }
        }
    }
}

/// An ActivityKit push: start (iOS 17.2+, to the push-to-start token of ``attributesType``),
/// update or end (to the token registered for ``activity``, or as a channel broadcast).
public struct LiveActivity: Codable, Sendable, Hashable {
    /// What the push does.
    public var event: LiveActivityEvent
    /// Update and end: the registered activity it is for.
    public var activity: String?
    /// Start: the ActivityAttributes type to create.
    public var attributesType: String?
    /// Start: the static attributes.
    public var attributes: JSONValue?
    /// The activity's ContentState; required for start and update.
    public var contentState: JSONValue?
    /// Shown with the change on the Lock Screen and in the Dynamic Island.
    public var alert: AlertContent?
    /// When the content is out of date.
    public var staleDate: Date?
    /// When an ended activity leaves the Lock Screen.
    public var dismissalDate: Date?
    /// Which of the app's activities the Dynamic Island shows first (higher wins).
    public var relevanceScore: Double?
    /// Start, iOS 18: the `apnsChannelId` of the channel the activity listens on.
    public var inputPushChannel: String?
    /// Start, iOS 18: asks the started activity for an update token.
    public var inputPushToken: Bool?

    /// Creates a `LiveActivity` from its fields.
    public init(event: LiveActivityEvent, activity: String? = nil, attributesType: String? = nil, attributes: JSONValue? = nil,
                contentState: JSONValue? = nil, alert: AlertContent? = nil, staleDate: Date? = nil, dismissalDate: Date? = nil,
                relevanceScore: Double? = nil, inputPushChannel: String? = nil, inputPushToken: Bool? = nil) {
        self.event = event
        self.activity = activity
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.inputPushChannel = inputPushChannel
        self.inputPushToken = inputPushToken
    }
}

/// What a Live Activity push does.
public enum LiveActivityEvent: OpenEnum {
    case start, update, end
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "start": self = .start
        case "update": self = .update
        case "end": self = .end
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .start: return "start"
        case .update: return "update"
        case .end: return "end"
        case .unknown(let value): return value
        }
    }
}

/// The answer to scheduling: the stored notification, and what the overflow policy did.
public struct ScheduleResult: Decodable, Sendable, Hashable {
    /// The stored notification; nil when `keepSoonest` evicted the new notification itself.
    public var notification: LocalNotification?
    /// Whether the new notification is stored.
    public var stored: Bool
    /// Whether it replaced one with the same id.
    public var replaced: Bool
    /// The ids of the notifications `keepSoonest` evicted to make room.
    public var evicted: [String]
    /// Whether the server answered a resend with the first answer (`Idempotent-Replayed: true`):
    /// a call with this `Idempotency-Key` had already scheduled it, and nothing changed now.
    public var replayed: Bool

    /// Creates a `ScheduleResult` from its fields.
    public init(notification: LocalNotification?, stored: Bool, replaced: Bool, evicted: [String], replayed: Bool = false) {
        self.notification = notification
        self.stored = stored
        self.replaced = replaced
        self.evicted = evicted
        self.replayed = replayed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        stored = try container.decodeIfPresent(Bool.self, forKey: .stored) ?? true
        replaced = try container.decodeIfPresent(Bool.self, forKey: .replaced) ?? false
        evicted = try container.decodeIfPresent([String].self, forKey: .evicted) ?? []
        replayed = false
        // The notification's fields sit at the top level, beside the scheduling facts.
        notification = container.contains(.id) ? try LocalNotification(from: decoder) : nil
    }

    enum CodingKeys: String, CodingKey { case stored, replaced, evicted, id }
}
