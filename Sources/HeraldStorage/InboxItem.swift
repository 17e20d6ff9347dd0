import Foundation
import HeraldCore

/// A local notification held for a device that had no channel when it fired.
public struct InboxItem: Hashable, Sendable {
    /// The firing it holds (its fire-log row): an inbox holds each firing once.
    public var logID: Int64?
    public var occurrence: Occurrence
    public var content: NotificationContent
    /// The content as the fire log stores it, when the item comes from a firing: the store
    /// copies these bytes instead of encoding ``content`` again.
    public var storedContent: String?
    public var firedAt: Date
    /// Its place in the device's inbox, once stored: what an acknowledgement names.
    public var sequence: Int64?

    public init(logID: Int64? = nil, occurrence: Occurrence, content: NotificationContent, storedContent: String? = nil,
                firedAt: Date, sequence: Int64? = nil) {
        self.logID = logID
        self.sequence = sequence
        self.occurrence = occurrence
        self.content = content
        self.storedContent = storedContent
        self.firedAt = firedAt
    }
}
