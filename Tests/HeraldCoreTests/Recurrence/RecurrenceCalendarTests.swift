import Foundation
import Testing
import HeraldCore

private typealias F = RecurrenceFixture

/// Month ends, leap years and wall-clock time kept across DST. Offsets checked with `zdump -v`.
@Suite("Recurrence calendar rules")
struct RecurrenceCalendarTests {
    @Test("Monthly from Jan 31 fires on the last day of shorter months, each computed from the anchor")
    func monthlyFromJanuary31() {
        // 08:00 New York: EST (-5) until Mar 14 2027 and Mar 12 2028, EDT (-4) after.
        let series = F.series("2027-01-31T08:00", in: "America/New_York", .month)
        #expect(F.dates(series, 0...3) == [
            F.utc("2027-01-31T13:00:00Z"),
            F.utc("2027-02-28T13:00:00Z"),
            F.utc("2027-03-31T12:00:00Z"),
            F.utc("2027-04-30T12:00:00Z"),
        ])
        // A leap year: Feb 29, and March is the 31st again, not the 29th.
        #expect(F.dates(series, 12...14) == [
            F.utc("2028-01-31T13:00:00Z"),
            F.utc("2028-02-29T13:00:00Z"),
            F.utc("2028-03-31T12:00:00Z"),
        ])
    }

    @Test("Quarterly from Nov 30 clamps to the end of February, then returns to the 30th")
    func quarterlyFromNovember30() {
        let series = F.series(at: "2026-11-30T10:15:00Z", .quarter)
        #expect(F.dates(series, 0...8) == [
            F.utc("2026-11-30T10:15:00Z"),
            F.utc("2027-02-28T10:15:00Z"),
            F.utc("2027-05-30T10:15:00Z"),
            F.utc("2027-08-30T10:15:00Z"),
            F.utc("2027-11-30T10:15:00Z"),
            F.utc("2028-02-29T10:15:00Z"),
            F.utc("2028-05-30T10:15:00Z"),
            F.utc("2028-08-30T10:15:00Z"),
            F.utc("2028-11-30T10:15:00Z"),
        ])
    }

    @Test("Yearly from Feb 29 fires Feb 28 in common years and Feb 29 again in the next leap year")
    func yearlyFromLeapDay() {
        // Asia/Kolkata is +05:30 all year.
        let series = F.series("2028-02-29T09:00", in: "Asia/Kolkata", .year)
        #expect(F.dates(series, 0...4) == [
            F.utc("2028-02-29T03:30:00Z"),
            F.utc("2029-02-28T03:30:00Z"),
            F.utc("2030-02-28T03:30:00Z"),
            F.utc("2031-02-28T03:30:00Z"),
            F.utc("2032-02-29T03:30:00Z"),
        ])
        // 2100 is not a leap year, 2400 is.
        #expect(series.occurrence(72) == F.utc("2100-02-28T03:30:00Z"))
        #expect(series.occurrence(372) == F.utc("2400-02-29T03:30:00Z"))
    }

    @Test("Every 2 months steps two months at a time and clamps each month independently")
    func everyTwoMonths() {
        let series = F.series(at: "2027-01-31T23:59:59Z", .month, every: 2)
        #expect(F.dates(series, 0...6) == [
            F.utc("2027-01-31T23:59:59Z"),
            F.utc("2027-03-31T23:59:59Z"),
            F.utc("2027-05-31T23:59:59Z"),
            F.utc("2027-07-31T23:59:59Z"),
            F.utc("2027-09-30T23:59:59Z"),
            F.utc("2027-11-30T23:59:59Z"),
            F.utc("2028-01-31T23:59:59Z"),
        ])
        let fromDecember = F.series(at: "2027-12-31T00:00:00Z", .month, every: 2)
        #expect(F.dates(fromDecember, 1...2) == [F.utc("2028-02-29T00:00:00Z"), F.utc("2028-04-30T00:00:00Z")])
    }

    @Test("Daily keeps the wall-clock time across DST, so its UTC time moves by the offset change")
    func dailyKeepsWallClock() {
        // Paris: CET (+1) until 2027-03-28 01:00Z, CEST (+2) after.
        let series = F.series("2027-03-26T07:30", in: "Europe/Paris", .day)
        #expect(F.dates(series, 0...3) == [
            F.utc("2027-03-26T06:30:00Z"),
            F.utc("2027-03-27T06:30:00Z"),
            F.utc("2027-03-28T05:30:00Z"),
            F.utc("2027-03-29T05:30:00Z"),
        ])
        // Back to CET on 2027-10-31 01:00Z; index 217 is Oct 29, 219 Oct 31.
        #expect(F.dates(series, 217...219) == [
            F.utc("2027-10-29T05:30:00Z"),
            F.utc("2027-10-30T05:30:00Z"),
            F.utc("2027-10-31T06:30:00Z"),
        ])
    }

    @Test("Weekly keeps the wall-clock time across DST")
    func weeklyKeepsWallClock() {
        // New York: EDT from 2027-03-14, EST from 2027-11-07.
        let series = F.series("2027-03-07T18:45", in: "America/New_York", .week)
        #expect(F.dates(series, 0...2) == [
            F.utc("2027-03-07T23:45:00Z"),
            F.utc("2027-03-14T22:45:00Z"),
            F.utc("2027-03-21T22:45:00Z"),
        ])
        #expect(F.dates(series, 34...35) == [F.utc("2027-10-31T22:45:00Z"), F.utc("2027-11-07T23:45:00Z")])
        let fortnightly = F.series("2027-03-07T18:45", in: "America/New_York", .week, every: 2)
        #expect(fortnightly.occurrence(1) == F.utc("2027-03-21T22:45:00Z"))
    }

    @Test("A daily repeat in a zone without DST (Asia/Kolkata, +05:30) stays at one UTC time")
    func kolkataDaily() {
        let series = F.series("2027-01-01T09:00", in: "Asia/Kolkata", .day)
        #expect(series.occurrence(0) == F.utc("2027-01-01T03:30:00Z"))
        #expect(series.occurrence(180) == F.utc("2027-06-30T03:30:00Z"))
        #expect(series.occurrence(364) == F.utc("2027-12-31T03:30:00Z"))
        let all = F.dates(series, 0..<365).compactMap { $0 }
        #expect(zip(all, all.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 86_400 })
    }

    @Test("An instant anchor repeats monthly on its UTC wall clock and keeps its sub-second part")
    func instantAnchorKeepsFraction() {
        let series = F.series(at: "2027-01-31T22:00:00.250Z", .month)
        #expect(series.occurrence(1) == F.utc("2027-02-28T22:00:00.250Z"))
        #expect(series.occurrence(2) == F.utc("2027-03-31T22:00:00.250Z"))
        let daily = F.series(at: "2027-03-13T12:00:00.5Z", .day)
        #expect(daily.occurrence(1) == F.utc("2027-03-14T12:00:00.5Z"))
    }
}
