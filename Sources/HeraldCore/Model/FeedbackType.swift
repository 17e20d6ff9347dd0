/// What a feedback event reports: its `type` on the outbound webhook and in the store, as the
/// raw value (`token.invalid`, ...).
public enum FeedbackType: String, Hashable, Sendable, CaseIterable, Codable {
    /// APNs (or FCM, or a Web Push service) said a token is dead; the device needs a new one.
    case tokenInvalid = "token.invalid"
    /// A push was refused or could not be sent.
    case deliveryFailed = "delivery.failed"
    /// A push was accepted (sent only when a receiver subscribes to it).
    case deliverySucceeded = "delivery.succeeded"
    /// A schedule pushed a device's soonest-first limit over, and this notification left.
    case notificationEvicted = "notification.evicted"
}
