/// What happens when a device already has ``NotificationLimit/maximumPending`` pending notifications.
public enum OverflowPolicy: String, Codable, Sendable, CaseIterable {
    /// Refuse the new one with `notificationLimitReached`; nothing stored changes.
    case reject
    /// The iOS policy: keep the soonest-firing ones and report which were evicted.
    case keepSoonest
}

/// An app, identified by its bundle id, e.g. `com.example.alarm`.
public struct App: Hashable, Sendable {
    public var id: String
    public var overflow: OverflowPolicy
    /// How to reach APNs; nil for an app whose occurrences are only recorded.
    public var push: PushSettings?
    /// System-event kinds the app declares beyond the built-in iOS set.
    public var customKinds: [CustomKind]
    /// How to reach its Android installations; nil when it has none.
    public var fcm: FCMSettings?
    /// How to reach its web installations; nil when it has none.
    public var webPush: WebPushSettings?

    public init(id: String, overflow: OverflowPolicy = .reject, push: PushSettings? = nil, customKinds: [CustomKind] = [],
                fcm: FCMSettings? = nil, webPush: WebPushSettings? = nil) {
        self.fcm = fcm
        self.webPush = webPush
        self.id = id
        self.overflow = overflow
        self.push = push
        self.customKinds = customKinds
    }

    /// Whether it has settings for the push service of `platform`.
    public func pushes(to platform: Platform) -> Bool {
        switch platform {
        case .ios: return push != nil
        case .android: return fcm != nil
        case .web: return webPush != nil
        }
    }
}
