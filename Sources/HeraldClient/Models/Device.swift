/// One installation of an app, as the server shows it.
public struct Device: Codable, Sendable, Hashable, Identifiable {
    /// The app's bundle id.
    public var app: String
    /// The identifier.
    public var id: String
    /// The IANA time zone, such as `Europe/Paris`.
    public var timeZone: String
    /// The platform, which decides the push service.
    public var platform: Platform
    /// The APNs device token (ios).
    public var token: String?
    /// The PushKit VoIP token (ios).
    public var voipToken: String?
    /// The FCM registration token (android).
    public var fcmToken: String?
    /// The browser's push subscription (web).
    public var webPush: WebPushSubscription?
    /// The locale, such as `en_US`.
    public var locale: String?
    /// Where it is.
    public var state: LifecycleState
    /// The background modes the app declared.
    public var backgroundModes: [BackgroundMode]
    /// iOS 17.2+: the push-to-start token per ActivityAttributes type.
    public var pushToStartTokens: [String: String]
    /// The running Live Activities' update tokens.
    public var activities: [ActivityRegistration]

    /// Creates a `Device` from its fields.
    public init(app: String, id: String, timeZone: String, platform: Platform = .ios, token: String? = nil,
                voipToken: String? = nil, fcmToken: String? = nil, webPush: WebPushSubscription? = nil, locale: String? = nil,
                state: LifecycleState = .notRunning, backgroundModes: [BackgroundMode] = [],
                pushToStartTokens: [String: String] = [:], activities: [ActivityRegistration] = []) {
        self.app = app
        self.id = id
        self.timeZone = timeZone
        self.platform = platform
        self.token = token
        self.voipToken = voipToken
        self.fcmToken = fcmToken
        self.webPush = webPush
        self.locale = locale
        self.state = state
        self.backgroundModes = backgroundModes
        self.pushToStartTokens = pushToStartTokens
        self.activities = activities
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        app = try container.decode(String.self, forKey: .app)
        id = try container.decode(String.self, forKey: .id)
        timeZone = try container.decode(String.self, forKey: .timeZone)
        platform = try container.decodeIfPresent(Platform.self, forKey: .platform) ?? .ios
        token = try container.decodeIfPresent(String.self, forKey: .token)
        voipToken = try container.decodeIfPresent(String.self, forKey: .voipToken)
        fcmToken = try container.decodeIfPresent(String.self, forKey: .fcmToken)
        webPush = try container.decodeIfPresent(WebPushSubscription.self, forKey: .webPush)
        locale = try container.decodeIfPresent(String.self, forKey: .locale)
        state = try container.decodeIfPresent(LifecycleState.self, forKey: .state) ?? .notRunning
        backgroundModes = try container.decodeIfPresent([BackgroundMode].self, forKey: .backgroundModes) ?? []
        pushToStartTokens = try container.decodeIfPresent([String: String].self, forKey: .pushToStartTokens) ?? [:]
        activities = try container.decodeIfPresent([ActivityRegistration].self, forKey: .activities) ?? []
    }

    enum CodingKeys: String, CodingKey {
        case app, id, timeZone, platform, token, voipToken, fcmToken, webPush, locale, state, backgroundModes
        case pushToStartTokens, activities
    }
}

/// The body of `PUT /v1/apps/{app}/devices/{device}`: a registration replaces the stored one,
/// keeping the lifecycle state and the registered Live Activities.
///
/// The address must fit the platform: ``token``, ``voipToken`` and ``pushToStartTokens`` for
/// ios, ``fcmToken`` for android, ``webPush`` for web (422 `addressNotForPlatform` otherwise).
public struct DeviceRegistration: Codable, Sendable, Hashable {
    /// The IANA time zone (required).
    public var timeZone: String
    /// nil: ios.
    public var platform: Platform?
    /// The APNs device token, hex.
    public var token: String?
    /// The PushKit VoIP token, hex.
    public var voipToken: String?
    /// The FCM registration token.
    public var fcmToken: String?
    /// The Web Push settings.
    public var webPush: WebPushSubscription?
    /// The locale, such as `en_US`.
    public var locale: String?
    /// The background modes the app declared.
    public var backgroundModes: [BackgroundMode]?
    /// iOS 17.2+: a push-to-start token per ActivityAttributes type.
    public var pushToStartTokens: [String: String]?

    /// Creates a `DeviceRegistration` from its fields.
    public init(timeZone: String, platform: Platform? = nil, token: String? = nil, voipToken: String? = nil,
                fcmToken: String? = nil, webPush: WebPushSubscription? = nil, locale: String? = nil,
                backgroundModes: [BackgroundMode]? = nil, pushToStartTokens: [String: String]? = nil) {
        self.timeZone = timeZone
        self.platform = platform
        self.token = token
        self.voipToken = voipToken
        self.fcmToken = fcmToken
        self.webPush = webPush
        self.locale = locale
        self.backgroundModes = backgroundModes
        self.pushToStartTokens = pushToStartTokens
    }
}

/// The kind of installation, which decides the push service: APNs, FCM or Web Push.
public enum Platform: OpenEnum, CaseIterable {
    case ios, android, web
    case unknown(String)

    /// The known platforms.
    public static let allCases: [Platform] = [.ios, .android, .web]

    public init(rawValue: String) {
        switch rawValue {
        case "ios": self = .ios
        case "android": self = .android
        case "web": self = .web
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .ios: return "ios"
        case .android: return "android"
        case .web: return "web"
        case .unknown(let value): return value
        }
    }
}

/// An app's lifecycle state on its device (the iOS app states). A device is awake in
/// `active`, `inactive` and `background`, asleep otherwise.
public enum LifecycleState: OpenEnum, CaseIterable {
    case notRunning, inactive, active, background, suspended
    case unknown(String)

    /// The known states.
    public static let allCases: [LifecycleState] = [.notRunning, .inactive, .active, .background, .suspended]

    public init(rawValue: String) {
        switch rawValue {
        case "notRunning": self = .notRunning
        case "inactive": self = .inactive
        case "active": self = .active
        case "background": self = .background
        case "suspended": self = .suspended
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .notRunning: return "notRunning"
        case .inactive: return "inactive"
        case .active: return "active"
        case .background: return "background"
        case .suspended: return "suspended"
        case .unknown(let value): return value
        }
    }

    /// Whether events reach the device live in this state.
    public var isAwake: Bool { self == .active || self == .inactive || self == .background }
}

/// A background mode the app declared (`UIBackgroundModes`).
public enum BackgroundMode: OpenEnum {
    case remoteNotification, voip, fetch
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "remote-notification": self = .remoteNotification
        case "voip": self = .voip
        case "fetch": self = .fetch
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .remoteNotification: return "remote-notification"
        case .voip: return "voip"
        case .fetch: return "fetch"
        case .unknown(let value): return value
        }
    }
}

/// A browser's push subscription: `PushSubscription.toJSON()`.
public struct WebPushSubscription: Codable, Sendable, Hashable {
    /// An https URL on one of the app's allowed push services.
    public var endpoint: String
    /// When the subscription expires (milliseconds since 1970), if known.
    public var expirationTime: Double?
    /// The subscription's keys.
    public var keys: Keys

    /// Creates a `WebPushSubscription` from its fields.
    public init(endpoint: String, keys: Keys, expirationTime: Double? = nil) {
        self.endpoint = endpoint
        self.keys = keys
        self.expirationTime = expirationTime
    }

    /// The subscription's keys, base64url.
    public struct Keys: Codable, Sendable, Hashable {
        /// The 65-byte uncompressed P-256 point.
        public var p256dh: String
        /// 16 bytes.
        public var auth: String

        /// Creates a `Keys` from its fields.
        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }
}

/// A running Live Activity's update token, as the app reports it from `pushTokenUpdates`.
public struct ActivityRegistration: Codable, Sendable, Hashable {
    /// The activity's id, chosen by the app.
    public var activity: String
    /// The update token, lowercase hex.
    public var token: String
    /// Its ActivityAttributes type name.
    public var attributesType: String?

    /// Creates a `ActivityRegistration` from its fields.
    public init(activity: String, token: String, attributesType: String? = nil) {
        self.activity = activity
        self.token = token
        self.attributesType = attributesType
    }
}
