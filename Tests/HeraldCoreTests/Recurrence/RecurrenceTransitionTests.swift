import Foundation
import Testing
import HeraldCore

private typealias F = RecurrenceFixture

/// Series that meet DST gaps and overlaps. Transitions checked with `zdump -v`.
@Suite("Recurrence across time-zone transitions")
struct RecurrenceTransitionTests {
    @Test("A daily series meeting the spring-forward gap fires the gap length later that day only")
    func dailyThroughGap() {
        // New York 02:30 does not exist on 2027-03-14: it fires at 03:30 EDT, then 02:30 EDT again.
        let series = F.series("2027-03-13T02:30", in: "America/New_York", .day)
        #expect(F.dates(series, 0...2) == [
            F.utc("2027-03-13T07:30:00Z"),
            F.utc("2027-03-14T07:30:00Z"),
            F.utc("2027-03-15T06:30:00Z"),
        ])
    }

    @Test("A daily series meeting the fall-back overlap fires at the first instance")
    func dailyThroughOverlap() {
        // New York 01:30 happens twice on 2027-11-07 (EDT 05:30Z, EST 06:30Z).
        let series = F.series("2027-11-06T01:30", in: "America/New_York", .day)
        #expect(F.dates(series, 0...2) == [
            F.utc("2027-11-06T05:30:00Z"),
            F.utc("2027-11-07T05:30:00Z"),
            F.utc("2027-11-08T06:30:00Z"),
        ])
    }

    @Test("A daily Lord Howe series inside the 30-minute gap shifts by 30 minutes")
    func lordHoweDaily() {
        // +10:30 → +11 at 02:00 local on 2027-10-03; 02:10 does not exist that day.
        let series = F.series("2027-10-02T02:10", in: "Australia/Lord_Howe", .day)
        #expect(F.dates(series, 0...2) == [
            F.utc("2027-10-01T15:40:00Z"),
            F.utc("2027-10-02T15:40:00Z"), // 02:40 +11
            F.utc("2027-10-03T15:10:00Z"),
        ])
    }

    @Test("A daily Santiago series at midnight shifts into the first hour when midnight is skipped")
    func santiagoMidnight() {
        // -04 → -03 at 00:00 local on 2027-09-05: that midnight is 01:00 -03.
        let series = F.series("2027-09-04T00:00", in: "America/Santiago", .day)
        #expect(F.dates(series, 0...2) == [
            F.utc("2027-09-04T04:00:00Z"),
            F.utc("2027-09-05T04:00:00Z"),
            F.utc("2027-09-06T03:00:00Z"),
        ])
        // -03 → -04 at 00:00 -03 on 2027-04-04: 23:15 on Apr 3 happens twice; the first is -03.
        let evening = F.series("2027-04-02T23:15", in: "America/Santiago", .day)
        #expect(F.dates(evening, 0...2) == [
            F.utc("2027-04-03T02:15:00Z"),
            F.utc("2027-04-04T02:15:00Z"),
            F.utc("2027-04-05T03:15:00Z"),
        ])
    }

    @Test("A daily Apia series lands twice on 2011-12-31 because 2011-12-30 was skipped")
    func apiaSkippedDay() {
        // -10 until 2011-12-30 10:00Z, then +14: noon on the 30th is noon on the 31st.
        let series = F.series("2011-12-28T12:00", in: "Pacific/Apia", .day)
        #expect(F.dates(series, 0...4) == [
            F.utc("2011-12-28T22:00:00Z"),
            F.utc("2011-12-29T22:00:00Z"),
            F.utc("2011-12-30T22:00:00Z"),
            F.utc("2011-12-30T22:00:00Z"),
            F.utc("2011-12-31T22:00:00Z"),
        ])
    }

    @Test("Previews never return the same instant twice, even across Apia's skipped day")
    func apiaPreviewSkipsDuplicate() {
        let series = F.series("2011-12-28T12:00", in: "Pacific/Apia", .day)
        let preview = series.occurrences(startingAt: 0, limit: 5)
        #expect(preview.map(\.index) == [0, 1, 2, 4, 5])
        #expect(preview.map(\.date) == [
            F.utc("2011-12-28T22:00:00Z"),
            F.utc("2011-12-29T22:00:00Z"),
            F.utc("2011-12-30T22:00:00Z"),
            F.utc("2011-12-31T22:00:00Z"),
            F.utc("2012-01-01T22:00:00Z"),
        ])
        // The first occurrence after the 30th's (shared by indices 2 and 3) is index 4.
        #expect(series.firstOccurrence(after: F.utc("2011-12-30T22:00:00Z"))?.index == 4)
        #expect(series.firstOccurrence(after: F.utc("2011-12-30T21:59:59Z"))?.index == 2)
    }

    @Test("Hourly repeats add absolute time across the spring-forward gap")
    func hourlyThroughGap() {
        // 00:30 EST, 01:30 EST, then 03:30 EDT: the wall clock skips 02:30.
        let series = F.series("2027-03-14T00:30", in: "America/New_York", .hour)
        let dates = F.dates(series, 0...3)
        #expect(dates == [
            F.utc("2027-03-14T05:30:00Z"),
            F.utc("2027-03-14T06:30:00Z"),
            F.utc("2027-03-14T07:30:00Z"),
            F.utc("2027-03-14T08:30:00Z"),
        ])
        let ny = F.zone("America/New_York")
        #expect(WallClock.localTime(at: dates[2]!, in: ny) == F.local("2027-03-14T03:30"))
    }

    @Test("Hourly repeats add absolute time across the fall-back overlap, visiting 01:30 twice")
    func hourlyThroughOverlap() {
        let series = F.series("2027-11-07T00:30", in: "America/New_York", .hour)
        let dates = F.dates(series, 0...3).compactMap { $0 }
        #expect(dates == [
            F.utc("2027-11-07T04:30:00Z"),
            F.utc("2027-11-07T05:30:00Z"),
            F.utc("2027-11-07T06:30:00Z"),
            F.utc("2027-11-07T07:30:00Z"),
        ])
        #expect(zip(dates, dates.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 3_600 })
        let ny = F.zone("America/New_York")
        #expect(dates.map { WallClock.localTime(at: $0, in: ny) }
            == ["2027-11-07T00:30", "2027-11-07T01:30", "2027-11-07T01:30", "2027-11-07T02:30"].map(F.local))
    }

    @Test("Minute repeats add absolute time across a gap: 01:59 EST is followed by 03:00 EDT")
    func minutesThroughGap() {
        let series = F.series("2027-03-14T01:58", in: "America/New_York", .minute)
        let dates = F.dates(series, 0...2).compactMap { $0 }
        #expect(dates == [F.utc("2027-03-14T06:58:00Z"), F.utc("2027-03-14T06:59:00Z"), F.utc("2027-03-14T07:00:00Z")])
        #expect(WallClock.localTime(at: dates[2], in: F.zone("America/New_York")) == F.local("2027-03-14T03:00"))
    }

    @Test("An anchor inside a gap is shifted, and hourly repeats count from the shifted instant")
    func anchorInGap() {
        let series = F.series("2027-03-28T02:30", in: "Europe/Paris", .hour, every: 2)
        #expect(F.dates(series, 0...1) == [F.utc("2027-03-28T01:30:00Z"), F.utc("2027-03-28T03:30:00Z")])
    }
}
