import Foundation

/// Where occurrence 0 sits in time.
public enum RecurrenceAnchor: Hashable, Sendable {
    /// An absolute instant (fire date given with Z or an offset). Day-and-longer repeats keep its
    /// UTC wall-clock time, preserving any sub-second part.
    case instant(Date)
    /// A wall-clock time in a zone (a fixed IANA zone, or the device's current zone for
    /// "floating").
    case wallClock(LocalDateTime, TimeZone)
}

/// A series of fire instants: an anchor and an optional repeat rule.
///
/// Every occurrence is computed directly from the anchor, never by stepping from the one before,
/// so a series cannot drift: a monthly series from Jan 31 fires on Mar 31 even though Feb 28
/// came before it. A rule whose `every` is below 1 does not repeat: only occurrence 0 exists.
public struct Recurrence: Sendable, Hashable {
    public let anchor: RecurrenceAnchor
    /// The repeat rule, or nil for a one-shot (only occurrence 0 exists).
    public let rule: RepeatRule?

    /// Derived from `anchor` once, so lookups do not re-resolve it.
    private let base: Base

    public init(anchor: RecurrenceAnchor, rule: RepeatRule?) {
        self.anchor = anchor
        self.rule = rule
        self.base = Base(anchor)
    }

    public static func == (lhs: Recurrence, rhs: Recurrence) -> Bool {
        lhs.anchor == rhs.anchor && lhs.rule == rhs.rule
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(anchor)
        hasher.combine(rule)
    }

    /// The instant of occurrence `index` (0-based), computed directly from the anchor.
    ///
    /// Returns nil if `index` is negative or past the end of the series: `count` is the total
    /// number of occurrences (the first one included), and `until` is inclusive.
    public func occurrence(_ index: Int) -> Date? {
        guard index >= 0, let date = unboundedDate(index), isWithinEnd(index: index, date: date)
        else { return nil }
        return date
    }

    /// The first occurrence strictly after `instant`, or nil if the series has ended by then.
    ///
    /// Estimates the index arithmetically and then corrects it by a step or two, so the cost does
    /// not grow with the age of the series (a minute repeat anchored years ago is as cheap as one
    /// anchored today). Instants beyond about year 135,000 have no next occurrence.
    public func firstOccurrence(after instant: Date) -> (index: Int, date: Date)? {
        // Far beyond any sensible date; keeps the estimate away from the arithmetic bounds.
        guard instant.timeIntervalSince1970 < Double(WallClock.secondsBound / 2) else { return nil }
        var n = estimatedIndex(after: instant)
        // Dates never decrease with the index, so walk down while the previous one is still later…
        while n > 0 {
            if let previous = unboundedDate(n - 1), previous <= instant { break }
            n -= 1
        }
        // …and up while this one is not.
        while true {
            guard let date = unboundedDate(n) else { return nil }
            if date > instant {
                return isWithinEnd(index: n, date: date) ? (n, date) : nil
            }
            n += 1
        }
    }

    /// Up to `limit` occurrences from `index` on, for previews.
    ///
    /// An occurrence that is not strictly later than the previous one returned is skipped. This
    /// happens only when a zone skips a whole day (Pacific/Apia on 2011-12-30): the skipped day's
    /// occurrence is pushed forward onto the next day's.
    public func occurrences(startingAt index: Int, limit: Int) -> [(index: Int, date: Date)] {
        var result: [(index: Int, date: Date)] = []
        guard limit > 0 else { return result }
        var i = max(index, 0)
        while result.count < limit, let date = occurrence(i) {
            if result.last.map({ date > $0.date }) ?? true {
                result.append((i, date))
            }
            guard i < Int.max else { break }
            i += 1
        }
        return result
    }

    // MARK: - Internals

    /// The anchor reduced to the numbers the arithmetic needs.
    private struct Base: Sendable {
        /// Occurrence 0 as an instant; minute and hour repeats add to it.
        var start: Date
        /// The anchor's wall clock as seconds since 1970-01-01T00:00 (whole seconds).
        var localSeconds: Int
        /// The anchor's calendar fields, for month arithmetic.
        var local: LocalDateTime
        /// The zone wall clocks resolve in; nil means UTC with `fraction` added back.
        var zone: TimeZone?
        /// Sub-second part of an instant anchor, relative to the reference date.
        var fraction: Double

        init(_ anchor: RecurrenceAnchor) {
            switch anchor {
            case .instant(let date):
                // Split on the reference date's own scale, where `Date` stores its value, so the
                // fraction comes back exactly.
                let reference = date.timeIntervalSinceReferenceDate
                let whole = reference.rounded(.down)
                let seconds: Int
                if whole.isFinite, abs(whole) < Double(WallClock.secondsBound) {
                    seconds = Int(whole) + 978_307_200
                    fraction = reference - whole
                } else {
                    seconds = WallClock.wholeSeconds(date)
                    fraction = 0
                }
                start = date
                localSeconds = seconds
                local = WallClock.fields(ofLocalSeconds: seconds)
                zone = nil
            case .wallClock(let wallClock, let tz):
                let seconds = WallClock.localSeconds(wallClock)
                start = Date(timeIntervalSince1970: Double(WallClock.resolve(seconds, in: tz)))
                localSeconds = seconds
                local = wallClock
                zone = tz
                fraction = 0
            }
        }

        /// The instant a wall clock (as local seconds) names for this anchor.
        func instant(localSeconds seconds: Int) -> Date {
            guard let zone else {
                return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + fraction)
            }
            return Date(timeIntervalSince1970: Double(WallClock.resolve(seconds, in: zone)))
        }

        /// Local seconds of `instant` on this anchor's wall clock.
        func localSeconds(at instant: Date) -> Int {
            let t = WallClock.wholeSeconds(instant)
            guard let zone else { return t }
            return t + WallClock.offset(zone, t)
        }
    }

    /// Whether the series' end still admits occurrence `index` at `date`.
    private func isWithinEnd(index: Int, date: Date) -> Bool {
        switch rule?.end {
        case .count(let count): return index < count
        case .until(let limit): return date <= limit
        case .untilWallClock(let local):
            guard case .wallClock(_, let zone) = anchor else { return date <= WallClock.instant(of: local, in: .gmt) }
            return date <= WallClock.instant(of: local, in: zone)
        case nil: return true
        }
    }

    /// Steps of the rule's unit in one repeat, in that unit's base measure (seconds, days or
    /// months); nil when the series does not repeat.
    private var step: (unit: StrideUnit, amount: Int)? {
        guard let rule, rule.every >= 1 else { return nil }
        let (unit, factor): (StrideUnit, Int)
        switch rule.unit {
        case .minute: (unit, factor) = (.seconds, 60)
        case .hour: (unit, factor) = (.seconds, 3_600)
        case .day: (unit, factor) = (.days, 1)
        case .week: (unit, factor) = (.days, 7)
        case .month: (unit, factor) = (.months, 1)
        case .quarter: (unit, factor) = (.months, 3)
        case .year: (unit, factor) = (.months, 12)
        }
        let (amount, overflow) = rule.every.multipliedReportingOverflow(by: factor)
        return overflow ? nil : (unit, amount)
    }

    private enum StrideUnit { case seconds, days, months }

    /// Occurrence `index` ignoring `count` and `until`; nil when it does not exist at all (no
    /// repeat) or lies beyond the range Herald computes in.
    private func unboundedDate(_ index: Int) -> Date? {
        if index == 0 { return base.start }
        guard let step else { return nil }
        let (total, overflow) = index.multipliedReportingOverflow(by: step.amount)
        guard !overflow else { return nil }
        switch step.unit {
        case .seconds:
            guard total <= WallClock.secondsBound else { return nil }
            return base.start.addingTimeInterval(Double(total))
        case .days:
            guard total <= WallClock.secondsBound / 86_400 else { return nil }
            return base.instant(localSeconds: base.localSeconds + total * 86_400)
        case .months:
            guard total <= WallClock.secondsBound / 86_400 / 31 else { return nil }
            let (yearShift, month0) = WallClock.floorDivMod(base.local.month - 1 + total, 12)
            let year = base.local.year + yearShift
            let month = month0 + 1
            let day = min(base.local.day, CivilCalendar.daysInMonth(year: year, month: month))
            let timeOfDay = WallClock.floorDivMod(base.localSeconds, 86_400).remainder
            let seconds = CivilCalendar.days(year: year, month: month, day: day) * 86_400 + timeOfDay
            return base.instant(localSeconds: seconds)
        }
    }

    /// An index at or just below the first occurrence after `instant`; the caller corrects it.
    private func estimatedIndex(after instant: Date) -> Int {
        guard let step, instant > base.start else { return 0 }
        let estimate: Int
        switch step.unit {
        case .seconds:
            let elapsed = instant.timeIntervalSince(base.start).rounded(.down)
            estimate = Int(elapsed) / step.amount
        case .days:
            // A repeat longer than the computable range has no occurrence after index 0 anyway.
            guard step.amount <= WallClock.secondsBound / 86_400 else { return 0 }
            let elapsed = base.localSeconds(at: instant) - base.localSeconds
            estimate = WallClock.floorDivMod(elapsed, step.amount * 86_400).quotient
        case .months:
            let now = WallClock.fields(ofLocalSeconds: base.localSeconds(at: instant))
            let elapsed = (now.year - base.local.year) * 12 + (now.month - base.local.month)
            estimate = WallClock.floorDivMod(elapsed, step.amount).quotient
        }
        return max(estimate, 0)
    }
}
