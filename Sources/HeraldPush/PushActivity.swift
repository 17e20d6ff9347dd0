import Foundation
import HeraldCore
import Synchronization

/// Pushes per minute by outcome and by platform for the last hour, per app: what the status page charts.
///
/// Kept in memory by this node (one lock per batch, not per push); a restart starts it afresh.
public final class PushActivity: Sendable {
    /// Counts for one minute.
    public struct Minute: Sendable, Hashable {
        /// The minute's start.
        public var start: Date
        public var counts: [PushOutcome.Result: Int]
        /// The same pushes by the platform they went to.
        public var platforms: [Platform: Int] = [:]
    }

    static let minutesKept = 60

    private let minutes = Mutex<[String: [Minute]]>([:])

    public init() {}

    /// Adds a batch's outcomes for `app` on `platform`, counted at `now`.
    public func record(_ counts: [PushOutcome.Result: Int], app: String, platform: Platform = .ios, now: Date = Date()) {
        guard !counts.isEmpty else { return }
        let start = Self.minute(of: now)
        let total = counts.values.reduce(0, +)
        minutes.withLock { minutes in
            var list = minutes[app, default: []]
            if list.last?.start != start { list.append(Minute(start: start, counts: [:])) }
            list[list.count - 1].counts.merge(counts, uniquingKeysWith: +)
            list[list.count - 1].platforms[platform, default: 0] += total
            let oldest = Self.oldestKept(now: now)
            list.removeAll { $0.start < oldest }
            minutes[app] = list
        }
    }

    /// The last hour, one entry per minute (oldest first, empty minutes included), for one app or
    /// every app together.
    public func lastHour(app: String? = nil, now: Date = Date()) -> [Minute] {
        let end = Self.minute(of: now)
        var totals: [Date: Minute] = [:]
        minutes.withLock { minutes in
            for (name, list) in minutes where app == nil || name == app {
                for minute in list {
                    var sum = totals[minute.start] ?? Minute(start: minute.start, counts: [:])
                    sum.counts.merge(minute.counts, uniquingKeysWith: +)
                    sum.platforms.merge(minute.platforms, uniquingKeysWith: +)
                    totals[minute.start] = sum
                }
            }
        }
        return (0..<Self.minutesKept).reversed().map { back in
            let start = end.addingTimeInterval(-Double(back) * 60)
            return totals[start] ?? Minute(start: start, counts: [:])
        }
    }

    /// The last hour's counts for `app`, added up.
    public func totals(app: String, now: Date = Date()) -> [PushOutcome.Result: Int] {
        let oldest = Self.oldestKept(now: now)
        return minutes.withLock { minutes in
            minutes[app, default: []].reduce(into: [:]) { totals, minute in
                if minute.start >= oldest { totals.merge(minute.counts, uniquingKeysWith: +) }
            }
        }
    }

    /// The start of the oldest minute the last hour at `now` takes in.
    private static func oldestKept(now: Date) -> Date {
        minute(of: now).addingTimeInterval(-Double(minutesKept - 1) * 60)
    }

    private static func minute(of date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60)
    }
}
