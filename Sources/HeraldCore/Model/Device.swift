import Foundation

/// The iOS app states a device reports.
public enum LifecycleState: String, Codable, Sendable, CaseIterable {
    case notRunning, inactive, active, background, suspended

    /// Awake devices receive events live; asleep ones have them queued.
    public var isAwake: Bool {
        switch self {
        case .active, .inactive, .background: return true
        case .notRunning, .suspended: return false
        }
    }

    /// Whether iOS can move an app from this state to `next`. Only a background app is
    /// suspended; everything else may follow a launch, a user action or a termination.
    public func canMove(to next: LifecycleState) -> Bool {
        guard next == .suspended else { return true }
        return self == .background || self == .suspended
    }

    /// Whether moving to `next` wakes the device, so its backlog and inbox are handed over: a
    /// move from asleep to awake, or any move the client asks to `drain`.
    public func wakes(movingTo next: LifecycleState, drain: Bool) -> Bool {
        drain || (!isAwake && next.isAwake)
    }
}

/// One installation of an app. The 128-notification limit applies per device.
public struct Device: Hashable, Sendable {
    public var appID: String
    public var id: String
    /// IANA zone the device is in now; floating notifications follow it.
    public var timeZone: String
    /// APNs device token, lowercase hex.
    public var token: String?
    public var voipToken: String?
    public var locale: String?
    public var state: LifecycleState
    /// Background modes the app declared: `remote-notification`, `voip`, `fetch`.
    public var backgroundModes: [String]
    /// Which push service reaches it: APNs (`token`), FCM (`fcmToken`) or Web Push (`webPush`).
    public var platform: Platform
    /// The FCM registration token of an Android installation.
    public var fcmToken: String?
    /// The push subscription of a web installation.
    public var webPush: WebPushSubscription?
    /// Push-to-start tokens (iOS 17.2+), one per ActivityAttributes type: where a Live Activity
    /// start goes.
    public var pushToStartTokens: [String: String]
    /// Running Live Activities' update tokens by activity id, registered one by one through
    /// `…/activities/{activity}` (a device PUT keeps them).
    public var activities: [String: LiveActivityToken]
    /// Set on the audience that holds a broadcast channel's scheduled broadcasts, never on an
    /// installation.
    public var broadcastChannel: BroadcastChannel?

    public init(appID: String, id: String, timeZone: String, token: String? = nil, voipToken: String? = nil,
                locale: String? = nil, state: LifecycleState = .notRunning, backgroundModes: [String] = [],
                platform: Platform = .ios, fcmToken: String? = nil, webPush: WebPushSubscription? = nil,
                pushToStartTokens: [String: String] = [:], activities: [String: LiveActivityToken] = [:],
                broadcastChannel: BroadcastChannel? = nil) {
        self.pushToStartTokens = pushToStartTokens
        self.activities = activities
        self.broadcastChannel = broadcastChannel
        self.backgroundModes = backgroundModes
        self.platform = platform
        self.fcmToken = fcmToken
        self.webPush = webPush
        self.appID = appID
        self.id = id
        self.timeZone = timeZone
        self.token = token
        self.voipToken = voipToken
        self.locale = locale
        self.state = state
    }

    /// Where its platform's push service reaches it, and the key the token ledger knows it by:
    /// the APNs token, the FCM token, or the Web Push endpoint. nil when it has none.
    public var pushAddress: String? {
        switch platform {
        case .ios: return token
        case .android: return fcmToken
        case .web: return webPush?.endpoint
        }
    }

    /// Every address registered for it, VoIP token included: each is valid again once registered.
    public var registeredAddresses: [String] {
        [token, voipToken, fcmToken, webPush?.endpoint].compactMap { $0 } + pushToStartTokens.values.sorted()
    }

    /// Where a push of `content` goes: a broadcast channel's APNs id for a channel's audience, the
    /// Live Activity's token for a Live Activity, else ``pushAddress``. nil when there is none.
    public func pushAddress(for content: NotificationContent) -> String? {
        if let broadcastChannel { return broadcastChannel.apnsChannelID }
        if let liveActivity = content.liveActivity { return address(for: liveActivity) }
        return pushAddress
    }

    /// True when a push of `content` needs the app's APNs settings to use token auth, and can
    /// never go to the live stream: a Live Activity, or a channel's broadcast. ActivityKit, not
    /// the app, applies them, so they go by push even while the app is active.
    public func isActivityPush(_ content: NotificationContent) -> Bool {
        broadcastChannel != nil || content.liveActivity != nil
    }

    /// The token a Live Activity push goes to: the push-to-start token of a start's attributes
    /// type, or the update token of the activity an update or end names. nil when it has none.
    public func address(for liveActivity: LiveActivity) -> String? {
        switch liveActivity.event {
        case .start: return liveActivity.attributesType.flatMap { pushToStartTokens[$0] }
        case .update, .end: return liveActivity.activity.flatMap { activities[$0]?.token }
        }
    }
}

/// Validation of the values a device registration carries.
public enum DeviceRules {
    /// A device token as logs may show it: its first 8 characters, enough to tell tokens apart
    /// when debugging, too few to push to.
    public static func redacted(token: String) -> String {
        token.count <= 8 ? token : token.prefix(8) + "…"
    }

    /// An APNs request path (`/3/device/<token>`) with its token redacted.
    public static func redacted(path: String) -> String {
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix) else { return path }
        return prefix + redacted(token: String(path.dropFirst(prefix.count)))
    }

    public static let backgroundModes: Set<String> = ["remote-notification", "voip", "fetch"]

    /// The declared background modes, each one of ``backgroundModes``, without repeats.
    public static func backgroundModes(_ modes: [String]) throws(HeraldError) -> [String] {
        for mode in modes where !backgroundModes.contains(mode) {
            throw .invalid(.invalidBackgroundMode, "'\(mode)' is not one of \(backgroundModes.sorted().joined(separator: ", "))")
        }
        return Array(Set(modes)).sorted()
    }

    /// An IANA zone id that this machine's tz database knows.
    public static func timeZone(_ identifier: String) throws(HeraldError) -> TimeZone {
        // TimeZone(identifier:) also accepts abbreviations and "GMT+2"; we want region ids only.
        guard identifier == "UTC" || identifier.contains("/") || TimeZone.knownTimeZoneIdentifiers.contains(identifier),
              let zone = TimeZone(identifier: identifier)
        else {
            throw .invalid(.invalidTimeZone, "'\(identifier)' is not a known IANA time zone")
        }
        return zone
    }

    /// A device token: an even number of hex digits (APNs tokens are 32 bytes today, but vary).
    public static func token(_ text: String, field: String) throws(HeraldError) -> String {
        let lower = text.lowercased()
        guard lower.utf8.count >= 16, lower.utf8.count <= 200, lower.utf8.count % 2 == 0,
              lower.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        else {
            throw .invalid(.invalidToken, "\(field) must be an even number (16–200) of hex digits")
        }
        return lower
    }

    /// An FCM registration token: 1–4,096 characters of the token alphabet (letters, digits, `-_:.`).
    public static func fcmToken(_ text: String) throws(HeraldError) -> String {
        guard !text.isEmpty, text.utf8.count <= 4096,
              text.utf8.allSatisfy({ b in
                  (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 45 || b == 95 || b == 58 || b == 46
              })
        else {
            throw .invalid(.invalidFcmToken, "fcmToken must be an FCM registration token (letters, digits, -_:.)")
        }
        return text
    }

    /// A locale identifier such as `fr_FR` or `en-US`.
    public static func locale(_ text: String) throws(HeraldError) -> String {
        guard !text.isEmpty, text.utf8.count <= 64,
              text.utf8.allSatisfy({ b in (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 || b == 45 || b == 64 || b == 61 })
        else {
            throw .invalid(.invalidLocale, "'\(text)' is not a locale identifier")
        }
        return text
    }
}
