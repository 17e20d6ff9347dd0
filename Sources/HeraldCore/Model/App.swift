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

    public init(id: String, overflow: OverflowPolicy = .reject, push: PushSettings? = nil, customKinds: [CustomKind] = []) {
        self.id = id
        self.overflow = overflow
        self.push = push
        self.customKinds = customKinds
    }
}
