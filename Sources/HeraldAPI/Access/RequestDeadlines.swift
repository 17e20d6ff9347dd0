import Dispatch
import Synchronization

/// The deadlines of the requests in flight, kept by one timer rather than a sleeping task per
/// request.
///
/// Every request has the same timeout, so each sweep (every `tick`, while any request is in
/// flight) expires those whose deadline passed. A deadline is met late by at most a tick. The
/// timer stops when no request is armed, so nothing is left running when the server stops.
///
/// ```swift
/// let armed = deadlines.arm { work.cancel() }
/// let result = await work.result
/// guard deadlines.disarm(armed) else { throw timedOut }   // it had expired
/// ```
public final class RequestDeadlines: Sendable {
    /// One armed request.
    public struct Armed: Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var sweeping = false
    }

    public let timeout: Duration
    private let tick: Duration
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "herald.request-deadlines")

    /// - Parameter timeout: how long a request may take; swept every tenth of it, between 5 ms
    ///   and 100 ms.
    public init(timeout: Duration) {
        self.timeout = timeout
        tick = min(.milliseconds(100), max(.milliseconds(5), timeout / 10))
    }

    /// Arms a request's deadline: `expire` runs once it has passed, unless it was disarmed first.
    public func arm(_ expire: @escaping @Sendable () -> Void) -> Armed {
        let deadline = ContinuousClock.now + timeout
        let (id, starts) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(deadline: deadline, expire: expire)
            defer { state.sweeping = true }
            return (id, !state.sweeping)
        }
        if starts { sweepLater() }
        return Armed(id: id)
    }

    /// Disarms a request's deadline.
    ///
    /// - Returns: false when the deadline had already expired (its `expire` ran or is running).
    public func disarm(_ armed: Armed) -> Bool {
        state.withLock { $0.entries.removeValue(forKey: armed.id) != nil }
    }

    private func sweepLater() {
        let nanoseconds = tick.components.seconds * 1_000_000_000 + tick.components.attoseconds / 1_000_000_000
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { self.sweep() }
    }

    private func sweep() {
        let now = ContinuousClock.now
        let (expired, again) = state.withLock { state in
            let expired = state.entries.filter { $0.value.deadline <= now }
            for id in expired.keys { state.entries.removeValue(forKey: id) }
            state.sweeping = !state.entries.isEmpty
            return (expired.values.map(\.expire), state.sweeping)
        }
        for expire in expired { expire() }
        if again { sweepLater() }
    }
}
