import Synchronization

/// The deadlines of the store calls in flight, watched by one task for all of them: a call costs
/// a registration in a table, not a timer and tasks of its own (the hot path makes two calls per
/// schedule). The watch ticks every `tick`, so a deadline fires up to one tick late.
final class CallDeadlines: Sendable {
    private struct Watched: Sendable {
        var deadline: ContinuousClock.Instant
        var expire: @Sendable () -> Void
    }

    private struct State {
        var next = 0
        var watched: [Int: Watched] = [:]
    }

    private let state = Mutex(State())
    private let watch: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let tick: Duration

    init(tick: Duration) {
        self.tick = tick
    }

    /// Calls `expire` once `timeout` has passed, unless ``remove(_:)`` came first.
    ///
    /// - Returns: the registration, for ``remove(_:)``.
    func register(after timeout: Duration, expire: @escaping @Sendable () -> Void) -> Int {
        startWatchingIfNeeded()
        return state.withLock { state in
            state.next += 1
            state.watched[state.next] = Watched(deadline: .now + timeout, expire: expire)
            return state.next
        }
    }

    func remove(_ id: Int) {
        _ = state.withLock { $0.watched.removeValue(forKey: id) }
    }

    /// Stops the watch; calls still registered never expire.
    func close() {
        watch.withLock { $0 }?.cancel()
    }

    private func startWatchingIfNeeded() {
        watch.withLock { watch in
            guard watch == nil else { return }
            // Detached: the watch outlives the call that happened to start it.
            watch = Task.detached { [weak self, tick] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    guard let self else { return }
                    self.expireDue()
                }
            }
        }
    }

    private func expireDue() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [Watched] in
            let ids = state.watched.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { state.watched.removeValue(forKey: $0) }
        }
        for watched in due { watched.expire() }
    }
}

/// One store call's wait for its work: the work reports its result, the deadline its expiry,
/// whichever comes first ends the wait. The caller may wait again (a new deadline) after an expiry.
final class CallWait<Success: Sendable>: Sendable {
    enum Outcome: Sendable {
        case finished(Result<Success, any Error>)
        case timedOut
    }

    private struct State {
        var result: Result<Success, any Error>?
        var waiting: CheckedContinuation<Outcome, Never>?
        var deadline: Int?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// The work's result: ends a wait now, or the next one at once.
    func finish(_ result: Result<Success, any Error>) {
        let (waiting, deadline) = state.withLock { state in
            state.result = result
            defer { state.waiting = nil }
            return (state.waiting, state.deadline)
        }
        waiting?.resume(returning: .finished(result))
        if let deadline, waiting != nil { deadlines.remove(deadline) }
    }

    private let deadlines: CallDeadlines

    init(deadlines: CallDeadlines) {
        self.deadlines = deadlines
    }

    /// Waits for the work's result, at most `timeout`. Cancelling the caller cancels `work` and
    /// ends the wait with a `CancellationError`.
    func wait(within timeout: Duration, cancelling work: Task<Void, Never>) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Outcome? = state.withLock { state in
                    if let result = state.result { return .finished(result) }
                    if state.cancelled { return .finished(.failure(CancellationError())) }
                    state.waiting = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                    return
                }
                let id = deadlines.register(after: timeout) { [weak self] in self?.expire() }
                let finished = state.withLock { state -> Bool in
                    state.deadline = id
                    return state.waiting == nil
                }
                // Finished (or cancelled) between the two locks: the registration is not needed.
                if finished { deadlines.remove(id) }
            }
        } onCancel: {
            work.cancel()
            let waiting = state.withLock { state in
                state.cancelled = true
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume(returning: .finished(.failure(CancellationError())))
        }
    }

    private func expire() {
        let waiting = state.withLock { state in
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: .timedOut)
    }
}
