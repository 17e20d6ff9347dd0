#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point on the monotonic clock in nanoseconds. The event loop compares deadlines on every
/// iteration, so this stays a plain integer instead of a generic clock instant.
struct MonotonicTime: Comparable, Sendable {
    var nanoseconds: UInt64

    static func now() -> MonotonicTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicTime(nanoseconds: UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec))
    }

    static func < (lhs: MonotonicTime, rhs: MonotonicTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    static func + (lhs: MonotonicTime, rhs: Duration) -> MonotonicTime {
        let add = rhs.clampedNanoseconds
        if add <= 0 { return lhs }
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(UInt64(add))
        return MonotonicTime(nanoseconds: overflow ? .max : sum)
    }

    /// Milliseconds until `self`, rounded up, for poll(2); 0 if already past.
    func millisecondsFrom(_ now: MonotonicTime) -> Int32 {
        if self <= now { return 0 }
        let ms = (nanoseconds - now.nanoseconds + 999_999) / 1_000_000
        return ms > UInt64(Int32.max) ? Int32.max : Int32(ms)
    }
}

extension Duration {
    /// Nanoseconds, saturating instead of trapping for absurd durations.
    public var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        if seconds > Int64.max / 1_000_000_000 { return .max }
        if seconds < Int64.min / 1_000_000_000 { return .min }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
