import Foundation
import HeraldCore
import HeraldStorage

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

    /// What the fire log stores for the firing `logID`.
    public func completing(_ logID: Int64) -> CompletedDelivery {
        CompletedDelivery(deliveryID: logID, channel: route, outcome: result, apnsStatus: apnsStatus, apnsID: apnsID)
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
