/// Which way an occurrence went: the fire log's `channel`, stored and shown as its raw value.
public enum DeliveryRoute: String, Hashable, Sendable, CaseIterable, Codable {
    /// Fired, not delivered yet: its node is delivering it.
    case pending
    /// Kept without sending (an app with no push settings, or a recording channel).
    case recorded
    /// Quietly, on the device's live event stream.
    case stream
    /// As an alert push through the gateway.
    case push
    /// Held in the device's inbox until it wakes.
    case inbox
    /// Nowhere: there was no way to the device.
    case none

    /// The route as the fire log stores it; text no version wrote reads as ``none``.
    public init(stored: String) {
        self = DeliveryRoute(rawValue: stored) ?? .none
    }
}
