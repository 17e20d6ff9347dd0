import Foundation
import HeraldCore

/// Literal inputs for the recurrence tests, parsed by Foundation rather than by the code under test.
enum RecurrenceFixture {
    /// An RFC 3339 UTC instant such as "2027-03-14T07:30:00Z" (fractional seconds allowed).
    static func utc(_ text: String) -> Date {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains("."))
        return try! Date(text, strategy: style)
    }

    static func zone(_ identifier: String) -> TimeZone {
        TimeZone(identifier: identifier)!
    }

    static func local(_ text: String) -> LocalDateTime {
        LocalDateTime(parsing: text)!
    }

    /// A series anchored at wall-clock `local` in `zone`.
    static func series(
        _ local: String, in zone: String, _ unit: RepeatUnit? = nil, every: Int = 1, end: RepeatEnd? = nil
    ) -> Recurrence {
        Recurrence(
            anchor: .wallClock(Self.local(local), Self.zone(zone)),
            rule: unit.map { RepeatRule(unit: $0, every: every, end: end) })
    }

    /// A series anchored at an absolute instant.
    static func series(
        at instant: String, _ unit: RepeatUnit? = nil, every: Int = 1, end: RepeatEnd? = nil
    ) -> Recurrence {
        Recurrence(anchor: .instant(utc(instant)), rule: unit.map { RepeatRule(unit: $0, every: every, end: end) })
    }

    /// Occurrences `indices` as UTC instants, for comparing with literal lists.
    static func dates(_ recurrence: Recurrence, _ indices: some Sequence<Int>) -> [Date?] {
        indices.map { recurrence.occurrence($0) }
    }
}
