import Foundation

/// An occurrence on its way to a device, with what a channel needs to deliver it.
public struct FiredOccurrence: Sendable {
    /// Its row in the fire log (the deliveries table): what its outcome completes, and what makes
    /// an inbox item or a live message for it unique. nil for `present`, which is not logged first.
    public var logID: Int64?
    public var occurrence: Occurrence
    public var content: NotificationContent
    public var device: Device
    /// When the scheduler fired it, on the scheduler's clock.
    public var firedAt: Date

    public init(logID: Int64? = nil, occurrence: Occurrence, content: NotificationContent, device: Device,
                firedAt: Date = Date()) {
        self.logID = logID
        self.occurrence = occurrence
        self.content = content
        self.device = device
        self.firedAt = firedAt
    }
}

