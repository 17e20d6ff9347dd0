import Foundation

/// Conversions between wall-clock times and instants in a time zone.
///
/// Foundation's `Calendar` can do this too, but its answers for nonexistent local times vary by
/// platform. Herald needs one fixed rule (RFC 5545 §3.3.5), so it resolves times itself and asks
/// the zone only for UTC offsets.
public enum WallClock {
    /// The instant that wall-clock time `local` names in `zone`.
    ///
    /// - A time inside a gap (spring forward, or a skipped day) is shifted forward by the gap
    ///   length, i.e. read with the UTC offset in force just before the gap, as RFC 5545 §3.3.5
    ///   says: New York 02:30 on a spring-forward day is 03:30 EDT.
    /// - A time inside an overlap (fall back) is its first, earlier instance.
    public static func instant(of local: LocalDateTime, in zone: TimeZone) -> Date {
        Date(timeIntervalSince1970: Double(resolve(localSeconds(local), in: zone)))
    }

    /// The wall-clock time at `instant` in `zone`, to the whole second (rounded down).
    ///
    /// Instants too far out to be meaningful (beyond about ±270,000 years) are clamped to that
    /// range rather than trapping.
    public static func localTime(at instant: Date, in zone: TimeZone) -> LocalDateTime {
        let t = wholeSeconds(instant)
        return fields(ofLocalSeconds: t + offset(zone, t))
    }

    // MARK: - Internals shared with Recurrence

    /// Bound on seconds since 1970 that Herald computes with; keeps every Int conversion and
    /// civil-date formula far from overflow.
    static let secondsBound = 8_640_000_000_000 // 100,000,000 days

    /// `local` as seconds since 1970-01-01T00:00 on the same wall clock (as if it were UTC).
    static func localSeconds(_ local: LocalDateTime) -> Int {
        CivilCalendar.days(year: local.year, month: local.month, day: local.day) * 86_400
            + local.hour * 3_600 + local.minute * 60 + local.second
    }

    /// The calendar fields of `seconds` since 1970-01-01T00:00 on a wall clock.
    static func fields(ofLocalSeconds seconds: Int) -> LocalDateTime {
        let (days, secondOfDay) = floorDivMod(seconds, 86_400)
        let date = CivilCalendar.date(days: days)
        return LocalDateTime(
            year: date.year, month: date.month, day: date.day,
            hour: secondOfDay / 3_600, minute: secondOfDay % 3_600 / 60, second: secondOfDay % 60)
    }

    /// `instant` as whole seconds since 1970 (rounded down), clamped to ``secondsBound``.
    static func wholeSeconds(_ instant: Date) -> Int {
        let t = instant.timeIntervalSince1970.rounded(.down)
        guard t.isFinite else { return t < 0 ? -secondsBound : secondsBound }
        return Int(max(-Double(secondsBound), min(Double(secondsBound), t)))
    }

    /// The UTC offset in force at `seconds` since 1970.
    static func offset(_ zone: TimeZone, _ seconds: Int) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
    }

    /// The instant (seconds since 1970) named by local seconds `local` in `zone`.
    ///
    /// Every instant whose wall clock reads `local` lies within a day of `local` read as UTC,
    /// since real offsets stay within ±18 hours. An instant `t` names `local` exactly when
    /// `t + offset(t) == local`, so candidates built from nearby offsets are checked that way.
    static func resolve(_ local: Int, in zone: TimeZone) -> Int {
        // Fast path: the offsets a day either side cover any single transition near `local`.
        let before = offset(zone, local - 86_400)
        let after = offset(zone, local + 86_400)
        if let t = earliestValid(local, offsets: before == after ? [before] : [before, after], zone) {
            return t
        }
        // Two transitions close together can hide a third offset; look at a few more points.
        let more = [local - 43_200, local, local + 43_200].map { offset(zone, $0) }
        if let t = earliestValid(local, offsets: more, zone) {
            return t
        }
        return resolveBySearch(local, in: zone)
    }

    /// The earliest instant `local - o` (for `o` in `offsets`) whose own offset is `o`.
    private static func earliestValid(_ local: Int, offsets: [Int], _ zone: TimeZone) -> Int? {
        var best: Int?
        for o in offsets {
            let t = local - o
            if offset(zone, t) == o, best.map({ t < $0 }) ?? true {
                best = t
            }
        }
        return best
    }

    /// Bisection for where the wall clock passes `local`, used when no nearby offset names it.
    ///
    /// `wall(t) - local` is negative a day before `local` and positive a day after, so bisection
    /// ends either on an instant that names `local` or on a transition that jumps over it: a
    /// gap, resolved with the offset in force just before the jump.
    private static func resolveBySearch(_ local: Int, in zone: TimeZone) -> Int {
        var lo = local - 86_400
        var hi = local + 86_400
        var offsetAtLo = offset(zone, lo)
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            let o = offset(zone, mid)
            let wall = mid + o
            if wall == local { return mid }
            if wall < local {
                lo = mid
                offsetAtLo = o
            } else {
                hi = mid
            }
        }
        return local - offsetAtLo
    }

    /// Floor division and its non-negative remainder (Swift's `/` and `%` truncate toward zero).
    static func floorDivMod(_ a: Int, _ b: Int) -> (quotient: Int, remainder: Int) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
