import Foundation
import Synchronization

/// How late occurrences fired, counted in fixed buckets since start: the status page's chart.
/// (`/metrics` has the same as the `herald_fire_lateness_seconds` histogram.)
public final class FiringLateness: Sendable {
    /// Upper bounds of the buckets, in seconds; a last bucket holds everything later.
    public static let bounds: [Double] = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60]

    private let counts = Mutex([Int](repeating: 0, count: FiringLateness.bounds.count + 1))

    public init() {}

    /// Adds one batch's lateness values, in seconds.
    public func record(_ seconds: [Double]) {
        let indices = seconds.map { value in Self.bounds.firstIndex { value <= $0 } ?? Self.bounds.count }
        counts.withLock { counts in for index in indices { counts[index] += 1 } }
    }

    /// Counts per bucket, in the order of ``bounds`` plus the last (later than every bound).
    public var buckets: [Int] { counts.withLock { $0 } }
}
