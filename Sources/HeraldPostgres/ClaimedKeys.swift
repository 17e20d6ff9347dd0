import Synchronization

/// The notifications this node's next claim does not read: those its claims in flight have read
/// and not yet written, and those a recent claim found taken by someone else (their rows locked:
/// another node's claim, a cancel, a replace, or changed since its read).
///
/// A claim reads without locking (``ClaimRead``) and its write takes only rows still as read
/// (``ClaimWrite``), so two claims reading the same rows fire each once; skipping these keys
/// keeps them from doing the same work twice, and a claim whose rows another writer holds from
/// reading them again and again until that writer commits.
final class ClaimedKeys: Sendable {
    private struct State {
        /// Read by a claim in flight, until its write has ended. Claims read in turn, each
        /// skipping these, so no key is read by two of them.
        var inFlight: Set<Int64> = []
        /// Found taken by someone else, until the instant after which they are read again.
        var contested: [Int64: ContinuousClock.Instant] = [:]
    }

    /// How long a key found taken is skipped: about one claim write of another node.
    static let contestedMilliseconds: Int64 = 200

    private let state = Mutex(State())

    /// The keys a read now skips.
    func skipped() -> [Int64] {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.contested = state.contested.filter { $0.value > now }
            return Array(state.inFlight) + state.contested.keys.filter { !state.inFlight.contains($0) }
        }
    }

    /// Records a claim's read keys as in flight, until ``finished(_:contested:)``.
    func reading(_ keys: [Int64]) {
        state.withLock { state in
            state.inFlight.formUnion(keys)
        }
    }

    /// Ends a claim: its keys are no longer in flight, and those it could not take are skipped
    /// for ``contestedMilliseconds``.
    func finished(_ keys: [Int64], contested: [Int64]) {
        let until = ContinuousClock.now + .milliseconds(Self.contestedMilliseconds)
        state.withLock { state in
            state.inFlight.subtract(keys)
            for key in contested { state.contested[key] = until }
        }
    }
}
