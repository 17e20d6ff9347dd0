import Foundation

/// An occurrence on its way to a device, with what a channel needs to deliver it.
public struct FiredOccurrence: Sendable {
    /// Its row in the fire log (the deliveries table): what its outcome completes, and what makes
    /// an inbox item or a live message for it unique. nil for `present`, which is not logged first.
    public var logID: Int64?
    public var occurrence: Occurrence
    /// The content exactly as it was scheduled, as JSON text. The claim copies the stored text
    /// without decoding it; whoever delivers decodes it with ``content()``, off the timer's path.
    public var contentJSON: String
    public var device: Device
    /// When the scheduler fired it, on the scheduler's clock.
    public var firedAt: Date

    public init(logID: Int64? = nil, occurrence: Occurrence, contentJSON: String, device: Device,
                firedAt: Date = Date()) {
        self.logID = logID
        self.occurrence = occurrence
        self.contentJSON = contentJSON
        self.device = device
        self.firedAt = firedAt
    }

    /// - Throws: `EncodingError` if the content cannot be written as JSON (it always can).
    public init(logID: Int64? = nil, occurrence: Occurrence, content: NotificationContent, device: Device,
                firedAt: Date = Date()) throws {
        self.init(logID: logID, occurrence: occurrence,
                  contentJSON: String(decoding: try JSONEncoder().encode(content), as: UTF8.self),
                  device: device, firedAt: firedAt)
    }

    /// The content, decoded from ``contentJSON``.
    ///
    /// - Throws: `DecodingError` if the stored text is not notification content (a corrupt row).
    public func content() throws -> NotificationContent {
        try JSONDecoder().decode(NotificationContent.self, from: Data(contentJSON.utf8))
    }
}
