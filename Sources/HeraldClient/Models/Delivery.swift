import Foundation

/// How one occurrence (or a presented notification) reached the device, as recorded.
public struct Delivery: Codable, Sendable, Hashable {
    /// `<notificationId>#<index>`.
    public var occurrenceId: String
    /// The notification it is an occurrence of.
    public var notificationId: String
    /// When it was due.
    public var scheduledFor: Date
    /// When it fired.
    public var firedAt: Date
    /// Whether it fired after its time (the server was down, say).
    public var late: Bool
    /// Occurrences skipped before it (a repeating notification that could not fire for a while).
    public var missed: Int
    /// Which way it went.
    public var channel: DeliveryChannel
    /// How it ended.
    public var outcome: DeliveryOutcome
    /// For pushes: the HTTP status APNs (or FCM, Web Push) answered.
    public var apnsStatus: Int?
    /// For pushes: the `apns-id` (FCM's message name, Web Push's Location).
    public var apnsId: String?

    /// Creates a `Delivery` from its fields.
    public init(occurrenceId: String, notificationId: String, scheduledFor: Date, firedAt: Date, late: Bool = false,
                missed: Int = 0, channel: DeliveryChannel, outcome: DeliveryOutcome, apnsStatus: Int? = nil, apnsId: String? = nil) {
        self.occurrenceId = occurrenceId
        self.notificationId = notificationId
        self.scheduledFor = scheduledFor
        self.firedAt = firedAt
        self.late = late
        self.missed = missed
        self.channel = channel
        self.outcome = outcome
        self.apnsStatus = apnsStatus
        self.apnsId = apnsId
    }
}

/// Which way an occurrence went.
public enum DeliveryChannel: OpenEnum {
    /// Kept without sending (an app with no push settings for the platform).
    case recorded
    /// On the device's live event stream.
    case stream
    /// As a push through APNs, FCM or Web Push.
    case push
    /// Held in the device's inbox until it wakes.
    case inbox
    /// Nowhere: there was no way to the device.
    case none
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "recorded": self = .recorded
        case "stream": self = .stream
        case "push": self = .push
        case "inbox": self = .inbox
        case "none": self = .none
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .recorded: return "recorded"
        case .stream: return "stream"
        case .push: return "push"
        case .inbox: return "inbox"
        case .none: return "none"
        case .unknown(let value): return value
        }
    }
}

/// How a delivery ended. Any value the server sends beyond the fixed ones is the reason of a
/// refusal (APNs' `Unregistered`, `payloadTooLarge`, `tokenInvalidated`...).
public enum DeliveryOutcome: OpenEnum {
    /// Kept without sending.
    case recorded
    /// Written to the live stream.
    case delivered
    /// Accepted by the push service.
    case sent
    /// Stored in the inbox.
    case held
    /// The device has no token for its push service.
    case noDeviceToken
    /// The device was deleted before its firing was delivered.
    case deviceGone
    case notDelivered
    /// Refused, by the push service or by the server's checks: the reason.
    case refused(String)

    public init(rawValue: String) {
        switch rawValue {
        case "recorded": self = .recorded
        case "delivered": self = .delivered
        case "sent": self = .sent
        case "held": self = .held
        case "noDeviceToken": self = .noDeviceToken
        case "deviceGone": self = .deviceGone
        case "notDelivered": self = .notDelivered
        default: self = .refused(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .recorded: return "recorded"
        case .delivered: return "delivered"
        case .sent: return "sent"
        case .held: return "held"
        case .noDeviceToken: return "noDeviceToken"
        case .deviceGone: return "deviceGone"
        case .notDelivered: return "notDelivered"
        case .refused(let reason): return reason
        }
    }
}
