import Foundation

/// One firing of a local notification.
///
/// Its id is the notification id plus the occurrence index, so a retry, a restart or a second node
/// recognises the same firing.
public struct Occurrence: Hashable, Sendable {
    public var appID: String
    public var deviceID: String
    public var notificationID: String
    public var index: Int
    /// The instant the occurrence was due.
    public var scheduledFor: Date
    /// It fired noticeably after it was due, e.g. after downtime.
    public var late: Bool
    /// Earlier occurrences of a repeating notification that were due but folded into this one.
    public var missed: Int

    public init(appID: String, deviceID: String, notificationID: String, index: Int, scheduledFor: Date,
                late: Bool, missed: Int) {
        self.appID = appID
        self.deviceID = deviceID
        self.notificationID = notificationID
        self.index = index
        self.scheduledFor = scheduledFor
        self.late = late
        self.missed = missed
    }

    public var id: String { Self.id(notificationID: notificationID, index: index) }

    public static func id(notificationID: String, index: Int) -> String { "\(notificationID)#\(index)" }
}

/// How an occurrence (or a presented notification) reached the device, as recorded.
public struct Delivery: Hashable, Sendable {
    public var occurrenceID: String
    public var appID: String
    public var deviceID: String
    public var notificationID: String
    public var scheduledFor: Date
    public var firedAt: Date
    public var late: Bool
    public var missed: Int
    /// `recorded` until a gateway exists; later `push`, `stream` or `inbox`.
    public var channel: String
    public var outcome: String

    public init(occurrenceID: String, appID: String, deviceID: String, notificationID: String, scheduledFor: Date,
                firedAt: Date, late: Bool, missed: Int, channel: String, outcome: String) {
        self.occurrenceID = occurrenceID
        self.appID = appID
        self.deviceID = deviceID
        self.notificationID = notificationID
        self.scheduledFor = scheduledFor
        self.firedAt = firedAt
        self.late = late
        self.missed = missed
        self.channel = channel
        self.outcome = outcome
    }
}
