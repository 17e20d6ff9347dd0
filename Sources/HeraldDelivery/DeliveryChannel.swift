import Foundation
import HeraldCore
import HeraldStorage

/// Which way an occurrence went.
public enum DeliveryRoute: String, Hashable, Sendable, CaseIterable {
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
}

/// How a delivery ended. Stored and shown as its `rawValue` (`sent`, `held`, an APNs reason...).
public enum DeliveryResult: Hashable, Sendable {
    case recorded
    /// Written to the live stream.
    case delivered
    /// Accepted by APNs.
    case sent
    /// Stored in the inbox.
    case held
    /// Refused, by APNs or by Herald's checks before sending: the reason (`Unregistered`,
    /// `payloadTooLarge`, `tokenInvalidated`, ...).
    case refused(String)
    /// Could not be completed: a transport failure or a storage error (`timeout`, ...). A fault,
    /// not an outcome: the dispatcher tries it again and never stores it.
    case failed(String)
    case noDeviceToken
    /// The device was deleted before its firing was delivered.
    case deviceGone
    case notDelivered

    /// The refusal of a firing whose stored content no longer decodes (a corrupt row): final.
    public static let contentUnreadable = "contentUnreadable"
    /// The refusal of a Live Activity update or end whose activity the device no longer has.
    public static let activityGone = "activityGone"
    /// The refusal of a broadcast for an app without APNs settings.
    public static let noPushSettings = "noPushSettings"
    /// The fault of a delivery whose store call failed: tried again, never stored.
    public static let storeUnavailable = "storeUnavailable"

    public var rawValue: String {
        switch self {
        case .recorded: return "recorded"
        case .delivered: return "delivered"
        case .sent: return "sent"
        case .held: return "held"
        case .refused(let reason), .failed(let reason): return reason
        case .noDeviceToken: return "noDeviceToken"
        case .deviceGone: return "deviceGone"
        case .notDelivered: return "notDelivered"
        }
    }

    /// The case without its reason (`refused`, `failed`, `sent`, `held`, ...): a bounded label.
    public var kind: String {
        switch self {
        case .refused: return "refused"
        case .failed: return "failed"
        default: return rawValue
        }
    }
}

/// Where an occurrence went and how it ended, as recorded in the fire log.
public struct DeliveryOutcome: Hashable, Sendable {
    public var route: DeliveryRoute
    public var result: DeliveryResult
    /// For pushes: APNs' HTTP status and `apns-id`.
    public var apnsStatus: Int?
    public var apnsID: String?

    public init(_ route: DeliveryRoute, _ result: DeliveryResult, apnsStatus: Int? = nil, apnsID: String? = nil) {
        self.route = route
        self.result = result
        self.apnsStatus = apnsStatus
        self.apnsID = apnsID
    }

    /// Recorded without sending.
    public static let recorded = DeliveryOutcome(.recorded, .recorded)
    /// No way to the device.
    public static let notDelivered = DeliveryOutcome(.none, .notDelivered)

    /// The stored columns: `channel` and `outcome`.
    public var channel: String { route.rawValue }
    public var outcome: String { result.rawValue }

    /// What the fire log stores for the firing `logID`.
    public func completing(_ logID: Int64) -> CompletedDelivery {
        CompletedDelivery(deliveryID: logID, channel: channel, outcome: outcome, apnsStatus: apnsStatus, apnsID: apnsID)
    }
}

/// Takes fired occurrences to devices.
///
/// The engine records each batch durably before calling `deliver`, so a crash in between leaves
/// the deliveries pending and they are handed over again at the next start. Implementations must
/// return one outcome per occurrence, in order, and must not wait forever.
public protocol DeliveryChannel: Sendable {
    func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome]
    /// The firings this channel would only hold in their devices' inboxes, for the claim to hold
    /// itself (see ``InboxOnlyRule``). nil, the default: the channel sees every firing.
    var inboxOnlyRule: InboxOnlyRule? { get }
}

extension DeliveryChannel {
    public var inboxOnlyRule: InboxOnlyRule? { nil }
}

/// Records occurrences without sending them anywhere: the channel before a push gateway exists,
/// and for apps that only want the schedule.
public struct RecordingChannel: DeliveryChannel {
    public init() {}

    public func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        Array(repeating: .recorded, count: batch.count)
    }
}
