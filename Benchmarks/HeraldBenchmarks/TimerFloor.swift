import Foundation

/// The timer floor: a bare loop that sleeps with `Task.sleep` until the next instant and then
/// hands over everything due, with no storage at all. Same instants, same lateness measure, and
/// the same sleep tolerance as the engine's `SystemClock`.
enum TimerFloor {
    /// Fires at `start + offsets[i]` milliseconds (offsets ascending).
    static func run(start: Int64, offsets: [Int64]) async -> FiringObservation {
        let instants = offsets.map { Date(millisecondsSince1970: start + $0) }
        var observation = FiringObservation()
        observation.lateness.reserveCapacity(instants.count)
        var next = 0
        while next < instants.count {
            let now = Date()
            if instants[next] <= now {
                while next < instants.count, instants[next] <= now {
                    observation.lateness.append(now.timeIntervalSince(instants[next]))
                    next += 1
                }
                observation.lastHandedAt = now
                continue
            }
            let wait = instants[next].timeIntervalSince(now)
            try? await Task.sleep(for: .nanoseconds(Int64(wait * 1e9)), tolerance: .microseconds(100),
                                  clock: .continuous)
        }
        return observation
    }
}
