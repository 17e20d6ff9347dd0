import Foundation
import Testing
import HeraldCore

private typealias F = RecurrenceFixture

@Suite("WallClock")
struct WallClockTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let zone: String
        let local: String
        let expected: String
        var testDescription: String { "\(zone) \(local) → \(expected)" }
    }

    /// Local times inside a spring-forward gap, each shifted forward by the gap's length.
    /// Transitions checked with `zdump -v`.
    @Test("A local time in a spring-forward gap is shifted forward by the gap length", arguments: [
        // EST→EDT at 02:00 local (07:00Z): 02:30 is 03:30 EDT.
        Case(zone: "America/New_York", local: "2027-03-14T02:30", expected: "2027-03-14T07:30:00Z"),
        Case(zone: "America/New_York", local: "2027-03-14T02:00", expected: "2027-03-14T07:00:00Z"),
        Case(zone: "America/New_York", local: "2027-03-14T02:59:59", expected: "2027-03-14T07:59:59Z"),
        // GMT→BST at 01:00 local (01:00Z): 01:30 is 02:30 BST.
        Case(zone: "Europe/London", local: "2027-03-28T01:30", expected: "2027-03-28T01:30:00Z"),
        // CET→CEST at 02:00 local (01:00Z): 02:30 is 03:30 CEST.
        Case(zone: "Europe/Paris", local: "2027-03-28T02:30", expected: "2027-03-28T01:30:00Z"),
        // +10:30→+11 at 02:00 local (15:30Z): the gap is 30 minutes, 02:15 is 02:45 +11.
        Case(zone: "Australia/Lord_Howe", local: "2027-10-03T02:15", expected: "2027-10-02T15:45:00Z"),
        // -04→-03 at midnight local (04:00Z): 00:30 is 01:30 -03.
        Case(zone: "America/Santiago", local: "2027-09-05T00:30", expected: "2027-09-05T04:30:00Z"),
        // -10→+14 at midnight local (10:00Z): all of 2011-12-30 is skipped; noon is noon on the 31st.
        Case(zone: "Pacific/Apia", local: "2011-12-30T12:00", expected: "2011-12-30T22:00:00Z"),
        Case(zone: "Pacific/Apia", local: "2011-12-30T00:00", expected: "2011-12-30T10:00:00Z"),
    ])
    func gap(_ c: Case) {
        #expect(WallClock.instant(of: F.local(c.local), in: F.zone(c.zone)) == F.utc(c.expected))
    }

    @Test("An ambiguous local time in a fall-back overlap is its first instance", arguments: [
        // EDT→EST at 02:00 EDT (06:00Z): 01:30 EDT is 05:30Z, not 06:30Z.
        Case(zone: "America/New_York", local: "2027-11-07T01:30", expected: "2027-11-07T05:30:00Z"),
        Case(zone: "America/New_York", local: "2027-11-07T01:00", expected: "2027-11-07T05:00:00Z"),
        // BST→GMT at 02:00 BST (01:00Z): 01:30 BST is 00:30Z.
        Case(zone: "Europe/London", local: "2027-10-31T01:30", expected: "2027-10-31T00:30:00Z"),
        // CEST→CET at 03:00 CEST (01:00Z): 02:30 CEST is 00:30Z.
        Case(zone: "Europe/Paris", local: "2027-10-31T02:30", expected: "2027-10-31T00:30:00Z"),
        // +11→+10:30 at 02:00 +11 (15:00Z): 01:45 +11 is 14:45Z.
        Case(zone: "Australia/Lord_Howe", local: "2027-04-04T01:45", expected: "2027-04-03T14:45:00Z"),
        // -03→-04 at midnight -03 (03:00Z): 23:30 on Apr 3 is first at -03, 02:30Z.
        Case(zone: "America/Santiago", local: "2027-04-03T23:30", expected: "2027-04-04T02:30:00Z"),
    ])
    func overlap(_ c: Case) {
        #expect(WallClock.instant(of: F.local(c.local), in: F.zone(c.zone)) == F.utc(c.expected))
    }

    @Test("Ordinary local times resolve with the offset in force")
    func ordinary() {
        #expect(WallClock.instant(of: F.local("2027-01-15T09:00"), in: F.zone("Asia/Kolkata")) == F.utc("2027-01-15T03:30:00Z"))
        #expect(WallClock.instant(of: F.local("2027-11-07T02:00"), in: F.zone("America/New_York")) == F.utc("2027-11-07T07:00:00Z"))
        #expect(WallClock.instant(of: F.local("2027-03-14T03:00"), in: F.zone("America/New_York")) == F.utc("2027-03-14T07:00:00Z"))
        #expect(WallClock.instant(of: F.local("2011-12-31T00:00"), in: F.zone("Pacific/Apia")) == F.utc("2011-12-30T10:00:00Z"))
        #expect(WallClock.instant(of: F.local("2011-12-29T23:59:59"), in: F.zone("Pacific/Apia")) == F.utc("2011-12-30T09:59:59Z"))
    }

    @Test("localTime reads the wall clock at an instant, both instances of an overlap included")
    func localTime() {
        let ny = F.zone("America/New_York")
        #expect(WallClock.localTime(at: F.utc("2027-11-07T05:30:00Z"), in: ny) == F.local("2027-11-07T01:30:00"))
        #expect(WallClock.localTime(at: F.utc("2027-11-07T06:30:00Z"), in: ny) == F.local("2027-11-07T01:30:00"))
        #expect(WallClock.localTime(at: F.utc("2027-03-14T07:00:00Z"), in: ny) == F.local("2027-03-14T03:00:00"))
        #expect(WallClock.localTime(at: F.utc("2027-03-14T06:59:59Z"), in: ny) == F.local("2027-03-14T01:59:59"))
        #expect(WallClock.localTime(at: F.utc("2011-12-30T10:00:00Z"), in: F.zone("Pacific/Apia")) == F.local("2011-12-31T00:00:00"))
    }

    @Test("localTime rounds sub-second instants down, before 1970 too")
    func localTimeFloors() {
        let utc = F.zone("UTC")
        #expect(WallClock.localTime(at: F.utc("2027-03-14T07:30:00.999Z"), in: utc) == F.local("2027-03-14T07:30:00"))
        #expect(WallClock.localTime(at: Date(timeIntervalSince1970: -0.5), in: utc) == F.local("1969-12-31T23:59:59"))
    }

    @Test("localTime and instant(of:) round trip every 97 minutes over two years in zones with odd transitions", arguments: [
        "America/New_York", "Europe/London", "Europe/Paris", "Australia/Lord_Howe", "America/Santiago",
        "Pacific/Apia", "Asia/Kolkata", "UTC",
    ])
    func roundTrip(_ identifier: String) {
        let zone = F.zone(identifier)
        // 2011-01-01 to 2013-01-01 includes Apia's skipped day; 97 minutes drifts across every time of day.
        var mismatches: [Date] = []
        var t = F.utc("2011-01-01T00:00:00Z")
        let end = F.utc("2013-01-01T00:00:00Z")
        while t < end {
            let local = WallClock.localTime(at: t, in: zone)
            let back = WallClock.instant(of: local, in: zone)
            // The second instance of an overlap maps back to the first; everything else is exact.
            let isSecondInstance = back < t && WallClock.localTime(at: back, in: zone) == local
            if back != t && !isSecondInstance { mismatches.append(t) }
            t += 97 * 60
        }
        #expect(mismatches.isEmpty)
    }
}
