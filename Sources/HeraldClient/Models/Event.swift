import Foundation

/// A change a device reports, such as a new orientation or a setting that changed.
///
/// ```swift
/// let events = [SystemEvent(kind: "orientation", value: "landscapeLeft"),
///               SystemEvent(kind: "settings", key: "darkMode", value: true)]
/// ```
public struct SystemEvent: Codable, Sendable, Hashable {
    /// A built-in kind (`orientation`, `timeZone`, `batteryLevel`, `settings`...) or a custom kind of the app.
    public var kind: String
    /// Which thing changed, for keyed kinds (an accessory id, a setting name).
    public var key: String?
    /// The new state; nil: the event carries none (``JSONValue/null`` is a value).
    public var value: JSONValue?

    /// Creates a `SystemEvent` from its fields.
    public init(kind: String, key: String? = nil, value: JSONValue? = nil) {
        self.kind = kind
        self.key = key
        self.value = value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        key = try container.decodeIfPresent(String.self, forKey: .key)
        // A `null` value is a value; only an absent key means none.
        value = container.contains(.value) ? try container.decode(JSONValue.self, forKey: .value) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(key, forKey: .key)
        if let value { try container.encode(value, forKey: .value) }
    }

    enum CodingKeys: String, CodingKey { case kind, key, value }
}

/// A coalesced system notification: the net change of one kind (and key) since the device last
/// received it, and how many raw events it stands for. Live events arrive one each (count 1).
public struct CoalescedEvent: Codable, Sendable, Hashable {
    /// The event kind.
    public var kind: String
    /// Which thing changed, for keyed kinds.
    public var key: String?
    /// The net value; ``JSONValue/null`` for valueless kinds.
    public var value: JSONValue
    /// How many reported events it stands for.
    public var count: Int

    /// Creates a `CoalescedEvent` from its fields.
    public init(kind: String, key: String? = nil, value: JSONValue = .null, count: Int = 1) {
        self.kind = kind
        self.key = key
        self.value = value
        self.count = count
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        key = try container.decodeIfPresent(String.self, forKey: .key)
        value = try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
        count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 1
    }

    enum CodingKeys: String, CodingKey { case kind, key, value, count }
}

/// The answer to reporting events: what happened to them.
public struct EventReport: Codable, Sendable, Hashable {
    /// Events accepted.
    public var accepted: Int
    /// Handed over live to an awake device.
    public var live: Int
    /// Queued for an asleep device.
    public var queued: Int
    /// The coalesced notifications now waiting.
    public var backlog: Int
}

/// A local notification as a device receives it: from its inbox (on wake) or on its live stream.
public struct InboxItem: Codable, Sendable, Hashable {
    /// `<notificationId>#<index>`.
    public var occurrenceId: String
    /// The notification it is an occurrence of.
    public var notificationId: String
    /// When it was due.
    public var scheduledFor: Date
    /// When it fired.
    public var firedAt: Date
    /// Whether it fired after its time.
    public var late: Bool
    /// Occurrences skipped before it.
    public var missed: Int
    /// The alert text.
    public var alert: AlertContent?
    /// A Live Activity change the device could not be pushed, for the app to apply itself.
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
    /// The hand-over id to acknowledge; the item is handed over again until then.
    public var seq: Int64?

    /// Creates a `InboxItem` from its fields.
    public init(occurrenceId: String, notificationId: String, scheduledFor: Date, firedAt: Date, late: Bool = false,
                missed: Int = 0, alert: AlertContent? = nil, liveActivity: LiveActivity? = nil, sound: String? = nil,
                badge: Int? = nil, category: String? = nil, threadId: String? = nil, userInfo: [String: JSONValue]? = nil,
                seq: Int64? = nil) {
        self.occurrenceId = occurrenceId
        self.notificationId = notificationId
        self.scheduledFor = scheduledFor
        self.firedAt = firedAt
        self.late = late
        self.missed = missed
        self.alert = alert
        self.liveActivity = liveActivity
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadId = threadId
        self.userInfo = userInfo
        self.seq = seq
    }
}

/// The answer to a wake or a state change: the new state, then what was waiting, in delivery
/// order (the coalesced system notifications first, then the inbox, oldest first).
public struct WakeResult: Codable, Sendable, Hashable {
    /// Where it is.
    public var state: LifecycleState
    /// Whether the device was asleep and is now awake.
    public var woke: Bool
    /// The coalesced system notifications.
    public var notifications: [CoalescedEvent]
    /// The hand-over id acknowledging ``notifications``; nil when there are none.
    public var backlogSeq: Int64?
    /// The local notifications held while the device was asleep.
    public var inbox: [InboxItem]

    /// Creates a `WakeResult` from its fields.
    public init(state: LifecycleState, woke: Bool, notifications: [CoalescedEvent] = [], backlogSeq: Int64? = nil,
                inbox: [InboxItem] = []) {
        self.state = state
        self.woke = woke
        self.notifications = notifications
        self.backlogSeq = backlogSeq
        self.inbox = inbox
    }

    /// The highest hand-over id in this answer (inbox `seq`s and ``backlogSeq``), nil when none:
    /// what acknowledges all of it.
    public var lastHandOverID: Int64? {
        (inbox.compactMap(\.seq) + [backlogSeq].compactMap { $0 }).max()
    }
}

/// The answer of `POST .../inbox/ack`: what the acknowledgement removed.
public struct Acknowledgement: Codable, Sendable, Hashable {
    /// Inbox items removed.
    public var acknowledged: Int
    /// Whether the backlog hand-over was acknowledged too.
    public var backlog: Bool
}
