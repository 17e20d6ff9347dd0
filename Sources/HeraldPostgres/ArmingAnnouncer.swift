import Logging
import Synchronization

/// Sends the instants this node armed to the other nodes, in batches: an instant armed while a
/// batch is on its way goes in the next one, and instants armed together (a daily 07:30 for many
/// devices) go once. Announced after the write committed, so a node killed in between leaves the
/// word unsent: the other nodes' sweep for the soonest pending instant covers it.
final class ArmingAnnouncer: Sendable {
    private struct State {
        var instants: Set<Int64> = []
        var sending = false
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Queues `instants`; if no batch is on its way, one starts now, sent with `send` (one batch
    /// of instants, sorted).
    func announce(_ instants: [Int64], send: @escaping @Sendable ([Int64]) async throws -> Void) {
        let start = state.withLock { state -> Bool in
            state.instants.formUnion(instants)
            guard !state.sending else { return false }
            state.sending = true
            return true
        }
        guard start else { return }
        Task { await self.sendBatches(send) }
    }

    private func sendBatches(_ send: @Sendable ([Int64]) async throws -> Void) async {
        while let batch = takeBatch() {
            do {
                try await send(batch)
            } catch {
                logger.warning("could not tell the other nodes of armed timers; their sweep finds them",
                               metadata: ["instants": "\(batch.count)", "error": "\(error)"])
            }
        }
    }

    /// The instants queued, sorted; nil, ending the batches, when none are.
    private func takeBatch() -> [Int64]? {
        state.withLock { state in
            guard !state.instants.isEmpty else {
                state.sending = false
                return nil
            }
            defer { state.instants.removeAll(keepingCapacity: true) }
            return state.instants.sorted()
        }
    }
}
