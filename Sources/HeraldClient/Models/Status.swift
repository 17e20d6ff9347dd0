import Foundation

/// `GET /v1/status`: every app, pending work, the outbox, pushes per minute and firing lateness.
public struct StatusOverview: Codable, Sendable, Hashable {
    /// One line per app.
    public var apps: [App]
    /// Scheduled notifications, all devices.
    public var pendingNotifications: Int
    /// Fired, not yet delivered.
    public var fireLogBacklog: Int
    /// Outbox messages by state (`pending`, `parked`).
    public var outbox: [String: Int]
    /// The last 60 minutes on this node, oldest first.
    public var pushesPerMinute: [Minute]
    /// How late occurrences fired, by bucket.
    public var firingLateness: [LatenessBucket]

    /// One app's line.
    public struct App: Codable, Sendable, Hashable {
        /// The app's bundle id.
        public var app: String
        /// How many devices.
        public var devices: Int
        /// Scheduled notifications.
        public var pending: Int
        /// Devices whose token is known dead.
        public var invalidTokens: Int
        /// Pushes by outcome (`accepted`, `unregistered`, `rejected`, `invalid`, `failed`, `timedOut`).
        public var pushesLastHour: [String: Int]
    }

    /// Pushes in one minute.
    public struct Minute: Codable, Sendable, Hashable {
        /// The minute.
        public var minute: Date
        /// By outcome.
        public var counts: [String: Int]
        /// By platform (`ios`, `android`, `web`).
        public var platforms: [String: Int]?
    }

    /// Occurrences that fired within a lateness bound.
    public struct LatenessBucket: Codable, Sendable, Hashable {
        /// Upper bound in seconds; nil: later than every bound.
        public var le: Double?
        /// How many.
        public var count: Int
    }
}

/// `GET /v1/status/apps/{app}`: one app's devices and channels.
public struct AppStatus: Codable, Sendable, Hashable {
    /// The app's bundle id.
    public var app: String
    /// Pushes in the last hour, by outcome.
    public var pushesLastHour: [String: Int]
    /// One line per device.
    public var devices: [Device]
    /// Its broadcast channels.
    public var channels: [Channel]?

    /// One device's line.
    public struct Device: Codable, Sendable, Hashable {
        /// The device id.
        public var device: String
        /// The platform, which decides the push service.
        public var platform: Platform?
        /// Where it is.
        public var state: LifecycleState
        /// The IANA time zone.
        public var timeZone: String
        /// Scheduled notifications.
        public var pending: Int
        /// Inbox items waiting.
        public var inbox: Int
        /// Coalesced notifications waiting.
        public var backlog: Int
    }

    /// One broadcast channel's line.
    public struct Channel: Codable, Sendable, Hashable {
        /// The name.
        public var name: String
        /// The id APNs assigned.
        public var apnsChannelId: String
        /// The message storage policy (0 or 1).
        public var messageStoragePolicy: Int
        /// The next scheduled broadcasts: "event at instant", soonest first.
        public var nextBroadcasts: [String]
    }
}

/// `GET /v1/status/apps/{app}/devices/{device}`: what waits for one device and what reached it.
public struct DeviceStatus: Codable, Sendable, Hashable {
    /// The app's bundle id.
    public var app: String
    /// The device id.
    public var device: String
    /// The platform, which decides the push service.
    public var platform: Platform?
    /// Where it is.
    public var state: LifecycleState
    /// The IANA time zone.
    public var timeZone: String
    /// ActivityAttributes types a Live Activity can be started for.
    public var pushToStartTypes: [String]?
    /// Its running Live Activities.
    public var activities: [Activity]?
    /// Scheduled notifications.
    public var pending: [Pending]
    /// Recent deliveries, newest first.
    public var deliveries: [Delivery]
    /// Inbox items waiting.
    public var inbox: [Inbox]
    /// Coalesced notifications waiting.
    public var backlog: [CoalescedEvent]

    /// A running Live Activity.
    public struct Activity: Codable, Sendable, Hashable {
        /// The activity's id.
        public var activity: String
        /// Its ActivityAttributes type name.
        public var attributesType: String?
        /// The token's first characters.
        public var token: String
        /// The next scheduled events: "event at instant", soonest first.
        public var nextEvents: [String]
    }

    /// A scheduled notification.
    public struct Pending: Codable, Sendable, Hashable {
        /// The identifier.
        public var id: String
        /// The title.
        public var title: String?
        /// The body text.
        public var body: String
        /// Its next fire dates.
        public var nextOccurrences: [Date]
    }

    /// An inbox item waiting.
    public struct Inbox: Codable, Sendable, Hashable {
        /// The hand-over id.
        public var seq: Int64
        /// The notification it is an occurrence of.
        public var notificationId: String
        /// When it fired.
        public var firedAt: Date
    }
}

/// `/healthz` or `/readyz`: `ok`, `ready`, or `unready` with the problems.
public struct Health: Codable, Sendable, Hashable {
    /// `ok` (`/healthz`), `ready` or `unready` (`/readyz`).
    public var status: String
    /// When unready: the store's error, or each failing or stalled loop.
    public var problems: String?

    /// Whether the server says it is healthy or ready.
    public var isHealthy: Bool { status == "ok" || status == "ready" }
}
