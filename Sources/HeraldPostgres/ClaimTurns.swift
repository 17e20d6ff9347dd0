import Synchronization

/// One half of a claim, taken by this node's claims one at a time: each reads in its turn (so
/// the next read knows what the last one took, ``ClaimedKeys``) and writes in its turn, from its
/// write to its commit, while the next one reads and decides: PostgreSQL works on one claim while
/// the node works on another.
///
/// Taking turns to write is what keeps two claims of a node from taking the same devices' locks
/// at once: a claim holds a firing only under its device's lock, taken without waiting, so two
/// writes in flight together would leave each other's firings pending.
final class ClaimTurns: Sendable {
    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// One claim's turn: taken before its read or write, given back once that is done or the call
    /// has ended however it ended. Taking it again (a statement run again after a deadlock) is a
    /// no-op; a turn granted after its call ended (a call given up on at its deadline while it
    /// waited) is given back at once.
    final class Turn: Sendable {
        private enum Phase { case waiting, held, ended }
        private let turns: ClaimTurns
        private let phase = Mutex(Phase.waiting)

        fileprivate init(_ turns: ClaimTurns) { self.turns = turns }

        func take() async {
            guard phase.withLock({ $0 == .waiting }) else { return }
            await turns.take()
            let ended = phase.withLock { phase in
                guard phase == .waiting else { return true }
                phase = .held
                return false
            }
            if ended { turns.giveBack() }
        }

        func giveBack() {
            let held = phase.withLock { phase in
                defer { phase = .ended }
                return phase == .held
            }
            if held { turns.giveBack() }
        }
    }

    func turn() -> Turn { Turn(self) }

    private func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                if state.taken {
                    state.waiting.append(continuation)
                    return false
                }
                state.taken = true
                return true
            }
            if granted { continuation.resume() }
        }
    }

    private func giveBack() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
