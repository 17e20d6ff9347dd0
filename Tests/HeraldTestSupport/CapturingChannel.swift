import HeraldCore
import HeraldDelivery
import HeraldStorage
import Synchronization

/// Remembers every batch handed to it, as a device would see them, and answers each firing
/// `recorded`.
public final class CapturingChannel: DeliveryChannel {
    private let batches = Mutex<[[FiredOccurrence]]>([])
    public let inboxOnlyRule: InboxOnlyRule?

    /// - Parameter holding: what a claim may hold in an inbox itself, instead of handing it here.
    public init(holding: InboxOnlyRule? = nil) {
        inboxOnlyRule = holding
    }

    public var received: [[FiredOccurrence]] { batches.withLock { $0 } }
    public var occurrences: [Occurrence] { received.flatMap { $0.map(\.occurrence) } }

    public func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        batches.withLock { $0.append(batch) }
        return Array(repeating: DeliveryOutcome.recorded, count: batch.count)
    }
}
