import Foundation
import Testing
import HeraldCore

private typealias F = RecurrenceFixture

/// Series length, indexing, and finding the next occurrence.
@Suite("Recurrence series")
struct RecurrenceSeriesTests {
    @Test("A one-shot has only occurrence 0")
    func oneShot() {
        let series = F.series("2027-05-01T09:00", in: "Europe/London")
        #expect(series.occurrence(0) == F.utc("2027-05-01T08:00:00Z"))
        #expect(series.occurrence(1) == nil)
        #expect(series.occurrence(-1) == nil)
        #expect(series.firstOccurrence(after: F.utc("2027-05-01T07:59:59Z"))?.index == 0)
        #expect(series.firstOccurrence(after: F.utc("2027-05-01T08:00:00Z")) == nil)
        #expect(series.occurrences(startingAt: 0, limit: 10).map(\.index) == [0])
    }

    @Test("count is the total number of occurrences, the first included")
    func count() {
        let series = F.series(at: "2027-01-01T09:00:00Z", .day, end: .count(3))
        #expect(F.dates(series, 0...3) == [
            F.utc("2027-01-01T09:00:00Z"), F.utc("2027-01-02T09:00:00Z"), F.utc("2027-01-03T09:00:00Z"), nil,
        ])
        #expect(series.occurrences(startingAt: 0, limit: 10).count == 3)
        #expect(series.firstOccurrence(after: F.utc("2027-01-02T09:00:00Z"))?.index == 2)
        #expect(series.firstOccurrence(after: F.utc("2027-01-03T09:00:00Z")) == nil)
    }

    @Test("until is inclusive: an occurrence exactly at until fires, one a second later does not")
    func untilInclusive() {
        let inclusive = F.series(at: "2027-01-01T09:00:00Z", .day, end: .until(F.utc("2027-01-03T09:00:00Z")))
        #expect(inclusive.occurrence(2) == F.utc("2027-01-03T09:00:00Z"))
        #expect(inclusive.occurrence(3) == nil)
        #expect(inclusive.firstOccurrence(after: F.utc("2027-01-03T08:00:00Z"))?.index == 2)
        #expect(inclusive.firstOccurrence(after: F.utc("2027-01-03T09:00:00Z")) == nil)
        let before = F.series(at: "2027-01-01T09:00:00Z", .day, end: .until(F.utc("2027-01-03T08:59:59Z")))
        #expect(before.occurrence(1) == F.utc("2027-01-02T09:00:00Z"))
        #expect(before.occurrence(2) == nil)
        #expect(before.occurrences(startingAt: 0, limit: 10).map(\.index) == [0, 1])
    }

    @Test("every multiplies the unit")
    func every() {
        let series = F.series(at: "2027-01-01T00:00:00Z", .minute, every: 15)
        #expect(F.dates(series, 0...2) == [
            F.utc("2027-01-01T00:00:00Z"), F.utc("2027-01-01T00:15:00Z"), F.utc("2027-01-01T00:30:00Z"),
        ])
        let hours = F.series(at: "2027-01-01T00:00:00Z", .hour, every: 36)
        #expect(hours.occurrence(1) == F.utc("2027-01-02T12:00:00Z"))
        let years = F.series(at: "2028-02-29T12:00:00Z", .year, every: 4)
        #expect(years.occurrence(1) == F.utc("2032-02-29T12:00:00Z"))
        #expect(years.occurrence(18) == F.utc("2100-02-28T12:00:00Z"))
    }

    @Test("No drift: occurrence 1000 of a monthly series from Jan 31 is computed from the anchor")
    func noDrift() {
        // 1000 months after January 2027 is May 2110; Paris is on CEST (+2) in May 2110.
        let paris = F.series("2027-01-31T09:00", in: "Europe/Paris", .month)
        #expect(paris.occurrence(1000) == F.utc("2110-05-31T07:00:00Z"))
        let utc = F.series(at: "2027-01-31T09:15:00Z", .month)
        #expect(utc.occurrence(1000) == F.utc("2110-05-31T09:15:00Z"))
        #expect(utc.occurrence(1001) == F.utc("2110-06-30T09:15:00Z"))
        #expect(utc.firstOccurrence(after: F.utc("2110-06-01T00:00:00Z"))?.index == 1001)
    }

    @Test("firstOccurrence on an exact occurrence instant returns the next one")
    func firstAfterExactInstant() {
        let series = F.series("2027-01-31T08:00", in: "America/New_York", .month)
        let next = series.firstOccurrence(after: F.utc("2027-03-31T12:00:00Z"))
        #expect(next?.index == 3)
        #expect(next?.date == F.utc("2027-04-30T12:00:00Z"))
        #expect(series.firstOccurrence(after: F.utc("2027-03-31T11:59:59Z"))?.index == 2)
        #expect(series.firstOccurrence(after: F.utc("2020-01-01T00:00:00Z"))?.index == 0)
    }

    @Test("firstOccurrence finds the right minute of a series anchored five years back")
    func firstAfterForOldMinuteSeries() {
        // 2022-01-01T00:00Z to 2027-03-14T07:30:30Z is 2,733,570.5 minutes.
        let minutes = F.series(at: "2022-01-01T00:00:00Z", .minute)
        let next = minutes.firstOccurrence(after: F.utc("2027-03-14T07:30:30Z"))
        #expect(next?.index == 2_733_571)
        #expect(next?.date == F.utc("2027-03-14T07:31:00Z"))
        #expect(minutes.firstOccurrence(after: F.utc("2027-03-14T07:31:00Z"))?.index == 2_733_572)
        // Every 7 minutes from New York midnight (05:00Z): 2,733,270 minutes → index 390,468.
        let sevens = F.series("2022-01-01T00:00", in: "America/New_York", .minute, every: 7)
        let seventh = sevens.firstOccurrence(after: F.utc("2027-03-14T07:30:00Z"))
        #expect(seventh?.index == 390_468)
        #expect(seventh?.date == F.utc("2027-03-14T07:36:00Z"))
    }

    @Test("firstOccurrence agrees with a linear scan for every unit, just before, at and after occurrences")
    func firstAfterMatchesScan() {
        let units: [(RepeatUnit, Int)] = [(.minute, 7), (.hour, 5), (.day, 1), (.day, 3), (.week, 2), (.month, 1), (.quarter, 1), (.year, 1)]
        for (unit, every) in units {
            let series = F.series("2027-01-31T02:30", in: "America/New_York", unit, every: every)
            let dates = (0..<40).map { series.occurrence($0)! }
            for (i, date) in dates.enumerated().dropLast() {
                for probe in [date - 1, date, date + 1] {
                    let expected = dates.firstIndex { $0 > probe }!
                    #expect(series.firstOccurrence(after: probe)?.index == expected, "\(unit) every \(every) index \(i)")
                }
            }
        }
    }

    @Test("occurrences(startingAt:limit:) returns consecutive indices from the start index")
    func previews() {
        let series = F.series(at: "2027-01-01T00:00:00Z", .week)
        let preview = series.occurrences(startingAt: 5, limit: 3)
        #expect(preview.map(\.index) == [5, 6, 7])
        #expect(preview.map(\.date) == [
            F.utc("2027-02-05T00:00:00Z"), F.utc("2027-02-12T00:00:00Z"), F.utc("2027-02-19T00:00:00Z"),
        ])
        #expect(series.occurrences(startingAt: 0, limit: 0).isEmpty)
    }

    @Test("Recurrences with equal anchor and rule are equal")
    func equality() {
        let a = F.series("2027-01-31T08:00", in: "America/New_York", .month)
        let b = F.series("2027-01-31T08:00", in: "America/New_York", .month)
        let c = F.series("2027-01-31T08:00", in: "America/New_York", .month, every: 2)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
    }
}
