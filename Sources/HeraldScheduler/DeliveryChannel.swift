import Foundation
import HeraldCore

/// Where an occurrence went and how it ended, as recorded in deliveries.
public struct DeliveryOutcome: Hashable, Sendable {
    /// `recorded`, and later `push`, `stream` or `inbox`.
    public var channel: String
    /// `recorded`, `sent`, or a failure reason.
    public var outcome: String
    /// For pushes: APNs' HTTP status and `apns-id`.
    public var apnsStatus: Int?
    public var apnsID: String?

    public init(channel: String, outcome: String, apnsStatus: Int? = nil, apnsID: String? = nil) {
        self.channel = channel
        self.outcome = outcome
        self.apnsStatus = apnsStatus
        self.apnsID = apnsID
    }
}

/// Takes fired occurrences to devices.
///
/// The engine records each batch durably before calling `deliver`, so a crash in between leaves
/// the deliveries pending and they are handed over again at the next start. Implementations must
/// return one outcome per occurrence, in order, and must not wait forever.
public protocol DeliveryChannel: Sendable {
    func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome]
}

/// Records occurrences without sending them anywhere: the channel before a push gateway exists,
/// and for apps that only want the schedule.
public struct RecordingChannel: DeliveryChannel {
    public init() {}

    public func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        Array(repeating: DeliveryOutcome(channel: "recorded", outcome: "recorded"), count: batch.count)
    }
}
