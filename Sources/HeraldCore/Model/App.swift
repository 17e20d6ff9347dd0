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

    public init(id: String, overflow: OverflowPolicy = .reject) {
        self.id = id
        self.overflow = overflow
    }
}
