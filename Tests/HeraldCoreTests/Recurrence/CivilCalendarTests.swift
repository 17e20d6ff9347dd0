import Testing
import HeraldCore

@Suite("CivilCalendar")
struct CivilCalendarTests {
    @Test("Known dates map to their day numbers since 1970-01-01")
    func knownDays() {
        #expect(CivilCalendar.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilCalendar.days(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilCalendar.days(year: 2000, month: 3, day: 1) == 11017)
        #expect(CivilCalendar.days(year: 1900, month: 3, day: 1) == -25508)
        #expect(CivilCalendar.days(year: 1600, month: 2, day: 29) == -135081)
        #expect(CivilCalendar.days(year: 2400, month: 2, day: 29) == 157113)
        #expect(CivilCalendar.days(year: 1, month: 1, day: 1) == -719162)
        #expect(CivilCalendar.days(year: 9999, month: 12, day: 31) == 2932896)
    }

    @Test("days() and date() round trip over a wide range, negative days included")
    func roundTrip() {
        // Checked in a plain loop and reported once: two million #expects would be slow.
        var firstFailure: Int?
        var previous = CivilCalendar.date(days: -1_000_001)
        for n in -1_000_000...1_000_000 where firstFailure == nil {
            let date = CivilCalendar.date(days: n)
            let roundTrips = CivilCalendar.days(year: date.year, month: date.month, day: date.day) == n
            // Each day follows the previous one on the calendar.
            let follows = date.day == 1
                ? previous.day == CivilCalendar.daysInMonth(year: previous.year, month: previous.month)
                    && (date.month == previous.month % 12 + 1)
                : date.day == previous.day + 1 && date.month == previous.month && date.year == previous.year
            if !roundTrips || !follows { firstFailure = n }
            previous = date
        }
        #expect(firstFailure == nil)
    }

    @Test("Leap days exist exactly in Gregorian leap years")
    func leapDays() {
        #expect(CivilCalendar.isLeapYear(2028))
        #expect(CivilCalendar.isLeapYear(2000))
        #expect(!CivilCalendar.isLeapYear(1900))
        #expect(!CivilCalendar.isLeapYear(2027))
        #expect(CivilCalendar.daysInMonth(year: 2028, month: 2) == 29)
        #expect(CivilCalendar.daysInMonth(year: 2100, month: 2) == 28)
        let leapDay = CivilCalendar.days(year: 2028, month: 2, day: 29)
        #expect(CivilCalendar.date(days: leapDay) == (2028, 2, 29))
        #expect(CivilCalendar.date(days: leapDay + 1) == (2028, 3, 1))
        #expect(CivilCalendar.date(days: CivilCalendar.days(year: -4, month: 2, day: 29)) == (-4, 2, 29))
    }
}
