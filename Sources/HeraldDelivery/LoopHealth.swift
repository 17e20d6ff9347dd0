import Foundation
import Metrics
import Synchronization

/// The node's long-running loops and how each is doing: when it last did its work and how many
/// times in a row it failed since. `/readyz` fails while a loop keeps failing or a periodic one
/// has stopped reporting, and the metrics export both per loop:
/// `herald_loop_last_success_timestamp_seconds{loop}` and `herald_loop_consecutive_failures{loop}`.
///
/// ```swift
/// let health = LoopHealth()
/// health.succeeded(.timer)
/// health.failed(.feedback)
/// health.problems(now: Date())   // ["feedback: failed 1 time in a row"]
/// ```
public final class LoopHealth: Sendable {
    public enum Loop: String, Sendable, CaseIterable {
        /// The scheduler's timer: claims what is due.
        case timer
        /// Stores delivery outcomes.
        case dispatcher
        /// Renews this node's leases and takes over firings (several nodes; every third of a lease).
        case heartbeat
        /// Listens for other nodes' timers (several nodes).
        case listener
        /// Listens for live messages relayed by other nodes (several nodes).
        case relay
        /// Delivers feedback events to their receivers.
        case feedback
        /// Prunes expired history.
        case retention
    }

    private struct State {
        var lastSuccess: Date?
        var failures = 0
        /// A loop that reports at least this often; nil for one that waits for work.
        var period: TimeInterval?
    }

    /// Consecutive failures from which a loop makes the node not ready.
    public static let failuresBeforeUnready = 3
    private let states = Mutex<[Loop: State]>([:])

    public init() {}

    /// Declares a loop that succeeds at least every `period` while it works: one silent for
    /// three periods counts as stuck.
    public func expect(_ loop: Loop, every period: TimeInterval) {
        states.withLock { states in
            states[loop, default: State()].period = period
            // Counted from now: a loop that never succeeds is stuck three periods after start.
            if states[loop]?.lastSuccess == nil { states[loop]?.lastSuccess = Date() }
        }
    }

    public func succeeded(_ loop: Loop, at now: Date = Date()) {
        let failures = states.withLock { states -> Int in
            defer { states[loop, default: State()].lastSuccess = now; states[loop]?.failures = 0 }
            return states[loop]?.failures ?? 0
        }
        Gauge(label: "herald_loop_last_success_timestamp_seconds", dimensions: [("loop", loop.rawValue)])
            .record(now.timeIntervalSince1970)
        if failures > 0 { Gauge(label: "herald_loop_consecutive_failures", dimensions: [("loop", loop.rawValue)]).record(0) }
    }

    public func failed(_ loop: Loop) {
        let failures = states.withLock { states -> Int in
            states[loop, default: State()].failures += 1
            return states[loop]!.failures
        }
        Gauge(label: "herald_loop_consecutive_failures", dimensions: [("loop", loop.rawValue)]).record(failures)
    }

    /// What keeps the node from being ready, one line a loop; empty when every loop is well.
    public func problems(now: Date = Date()) -> [String] {
        states.withLock { states in
            Loop.allCases.compactMap { loop in
                guard let state = states[loop] else { return nil }
                if state.failures >= Self.failuresBeforeUnready {
                    return "\(loop.rawValue): failed \(state.failures) times in a row"
                }
                if let period = state.period, let last = state.lastSuccess, now.timeIntervalSince(last) > 3 * period {
                    return "\(loop.rawValue): no success for \(Int(now.timeIntervalSince(last))) s"
                }
                return nil
            }
        }
    }
}
