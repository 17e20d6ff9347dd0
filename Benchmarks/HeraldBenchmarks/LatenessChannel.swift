import Foundation
import HeraldCore
import HeraldDelivery
import HeraldScheduler
import Synchronization

/// What a firing run observed: per occurrence, handed-over time minus its instant (seconds,
/// negative when handed over early), and when the last one was handed over.
struct FiringObservation: Sendable {
    var lateness: [Double] = []
    var lastHandedAt: Date?
    /// Hand-overs (batches) and the largest one.
    var batches = 0
    var largestBatch = 0
    /// How deliveries ended, by route, result and APNs status, when the channel reports it.
    var outcomes: [String: Int] = [:]

    var batchSummary: String {
        let mean = Double(lateness.count) / Double(Swift.max(1, batches))
        return String(format: "%d batches, mean %.1f, largest %d", batches, mean, largestBatch)
    }
}

/// Collects lateness samples from whichever task hands occurrences over.
final class LatenessRecorder: Sendable {
    private let state: Mutex<FiringObservation>

    init(expected: Int) {
        var initial = FiringObservation()
        initial.lateness.reserveCapacity(expected)
        state = Mutex(initial)
    }

    /// Records a batch handed over at `handedAt`, for occurrences due at `scheduled`.
    func record(handedAt: Date, scheduled: some Sequence<Date>) {
        state.withLock { observation in
            let before = observation.lateness.count
            for date in scheduled {
                observation.lateness.append(handedAt.timeIntervalSince(date))
            }
            observation.lastHandedAt = handedAt
            observation.batches += 1
            observation.largestBatch = Swift.max(observation.largestBatch, observation.lateness.count - before)
        }
    }

    /// The same, noting how each delivery ended.
    func record(handedAt: Date, scheduled: some Sequence<Date>, outcomes: [DeliveryOutcome]) {
        record(handedAt: handedAt, scheduled: scheduled)
        state.withLock { observation in
            for outcome in outcomes {
                let key = "\(outcome.route.rawValue) \(outcome.result.rawValue)" + (outcome.apnsStatus.map { " \($0)" } ?? "")
                observation.outcomes[key, default: 0] += 1
            }
        }
    }

    /// "50,000 push sent 200; 50,000 inbox held": route, result and APNs status, most first.
    var outcomeSummary: String {
        state.withLock { $0.outcomes }.sorted { $0.value > $1.value }
            .map { "\(Format.grouped($0.value)) \($0.key)" }.joined(separator: "; ")
    }

    var count: Int { state.withLock { $0.lateness.count } }

    var observation: FiringObservation { state.withLock { $0 } }
}

/// The delivery channel the engine hands fired occurrences to in the benchmark: it notes the
/// time of hand-over once per batch, records each occurrence's lateness, and reports them recorded.
struct LatenessChannel: DeliveryChannel {
    let recorder: LatenessRecorder

    func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        let handedAt = Date()
        recorder.record(handedAt: handedAt, scheduled: batch.lazy.map(\.occurrence.scheduledFor))
        return Array(repeating: DeliveryOutcome.recorded, count: batch.count)
    }
}
