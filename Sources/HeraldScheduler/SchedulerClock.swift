import Foundation
import Synchronization

/// The scheduler's notion of now, and its one way to wait.
///
/// Injected so tests can move time by hand instead of sleeping.
public protocol SchedulerClock: Sendable {
    func now() -> Date
    /// Returns at or after `deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// Wall-clock time, waiting on the monotonic clock.
public struct SystemClock: SchedulerClock {
    /// Longest single wait. Fire dates are wall-clock instants while sleeps are monotonic, so a
    /// long sleep is re-checked now and then in case the wall clock was stepped.
    public var longestWait: Duration
    /// Added to the system's time: a node whose clock is wrong, for the fault harness's
    /// clock-skew scenario (`HERALD_TEST_CLOCK_SKEW_MS`). Zero in production.
    public var skew: TimeInterval

    public init(longestWait: Duration = .seconds(300), skew: TimeInterval = 0) {
        self.longestWait = longestWait
        self.skew = skew
    }

    public func now() -> Date { Date().addingTimeInterval(skew) }

    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSince(now())
        guard seconds > 0 else { return }
        let wait = min(Duration.milliseconds(Int64((seconds * 1000).rounded(.up))), longestWait)
        try await Task.sleep(for: wait, tolerance: .microseconds(100), clock: .continuous)
    }
}

/// Time that moves only when told to; for tests and simulations.
public final class ManualClock: SchedulerClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    public init(now: Date) {
        state = Mutex(State(now: now))
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// Moves time forward to `date` and wakes every sleeper whose deadline has passed.
    public func advance(to date: Date) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = max(state.now, date)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    public func advance(by seconds: TimeInterval) {
        advance(to: now().addingTimeInterval(seconds))
    }

    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            try Task.checkCancellation()
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
