import Foundation
import HeraldCore
import Testing

@Suite("Fire date, time zone and repeat validation")
struct NotificationScheduleTests {
    /// The reason a refusal carries, or nil when the input was accepted.
    func reason(_ body: () throws -> Void) -> String? { refusal(body) }

    func schedule(_ fireDate: String, _ zone: String?, unit: String? = nil, every: Int? = nil, count: Int? = nil,
                  until: String? = nil) throws(HeraldError) -> NotificationSchedule {
        try NotificationSchedule(fireDate: fireDate, timeZone: zone, repeatUnit: unit, every: every, count: count, until: until)
    }

    @Test("A fire date with Z or an offset and no zone is an absolute instant")
    func absoluteInstant() throws {
        let utc = try schedule("2026-12-01T06:30:00Z", nil)
        let offset = try schedule("2026-12-01T07:30:00+01:00", nil)
        #expect(utc.fireDate == .instant(Date(timeIntervalSince1970: 1_796_106_600)))
        #expect(offset.fireDate == utc.fireDate)
        #expect(utc.timeZone == .absolute)
    }

    @Test("A wall-clock fire date with an IANA zone is wall-clock time in that zone")
    func fixedZone() throws {
        let value = try schedule("2026-12-01T07:30", "Europe/Paris")
        #expect(value.timeZone == .fixed("Europe/Paris"))
        #expect(value.fireDate == .wallClock(LocalDateTime(year: 2026, month: 12, day: 1, hour: 7, minute: 30)))
    }

    @Test("A wall-clock fire date with \"floating\" follows the device's zone")
    func floating() throws {
        let value = try schedule("2026-12-01T07:30:00", "floating")
        #expect(value.timeZone == .floating)
        let paris = value.recurrence(deviceTimeZone: TimeZone(identifier: "Europe/Paris")!).occurrence(0)
        let tokyo = value.recurrence(deviceTimeZone: TimeZone(identifier: "Asia/Tokyo")!).occurrence(0)
        #expect(paris == Date(timeIntervalSince1970: 1_796_106_600))  // 06:30Z
        #expect(tokyo == Date(timeIntervalSince1970: 1_796_077_800))  // 22:30Z the day before
    }

    @Test("A zone given with an offset date is refused with offsetWithTimeZone")
    func zoneWithOffset() {
        #expect(reason { _ = try schedule("2026-12-01T07:30:00+01:00", "Europe/Paris") } == "offsetWithTimeZone")
        #expect(reason { _ = try schedule("2026-12-01T07:30:00Z", "floating") } == "offsetWithTimeZone")
    }

    @Test("A wall-clock date without a zone is refused with timeZoneRequired")
    func wallClockNeedsZone() {
        #expect(reason { _ = try schedule("2026-12-01T07:30", nil) } == "timeZoneRequired")
    }

    @Test("An unknown zone is refused with invalidTimeZone")
    func unknownZone() {
        #expect(reason { _ = try schedule("2026-12-01T07:30", "Mars/Olympus") } == "invalidTimeZone")
        #expect(reason { _ = try schedule("2026-12-01T07:30", "CEST") } == "invalidTimeZone")
    }

    @Test("A malformed date is refused with invalidFireDate", arguments: [
        "tomorrow", "2026-13-01T07:30", "2026-02-30T07:30", "2026-12-01 07:30", "2026-12-01T24:00", "",
    ])
    func malformedDate(text: String) {
        #expect(reason { _ = try schedule(text, "Europe/Paris") } == "invalidFireDate")
    }

    @Test("Repeat rules: unit, every, count or until", arguments: [
        ("fortnight", nil, nil, nil), ("day", 0, nil, nil), ("day", nil, 0, nil),
        ("day", nil, 3, "2027-01-01T00:00:00Z"), ("day", nil, nil, "soon"),
    ] as [(String, Int?, Int?, String?)])
    func invalidRepeat(unit: String, every: Int?, count: Int?, until: String?) {
        #expect(reason { _ = try schedule("2026-12-01T07:30", "Europe/Paris", unit: unit, every: every, count: count, until: until) }
            == "invalidRepeat")
    }

    @Test("every, count and until need a repeat unit")
    func repeatFieldsNeedUnit() {
        #expect(reason { _ = try schedule("2026-12-01T07:30", "Europe/Paris", every: 2) } == "invalidRepeat")
    }

    @Test("A wall-clock until is read in the notification's zone")
    func untilInZone() throws {
        let value = try schedule("2026-12-01T07:30", "Europe/Paris", unit: "day", until: "2026-12-03T07:30")
        #expect(value.repeatRule?.end == .until(Date(timeIntervalSince1970: 1_796_279_400)))  // 2026-12-03T06:30Z
        #expect(value.recurrence(deviceTimeZone: .gmt).occurrences(startingAt: 0, limit: 10).count == 3)
    }

    @Test("A one-shot whose fire date has passed is refused with fireDateInPast")
    func pastOneShot() throws {
        let value = try schedule("2020-01-01T00:00:00Z", nil)
        #expect(reason { _ = try value.firstOccurrence(after: Date(), deviceTimeZone: .gmt) } == "fireDateInPast")
    }

    @Test("A repeating notification anchored in the past starts at its first future occurrence")
    func pastAnchorRepeats() throws {
        let value = try schedule("2020-01-01T00:00:00Z", nil, unit: "day")
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
        let next = try value.firstOccurrence(after: now, deviceTimeZone: .gmt)
        #expect(next.date == Date(timeIntervalSince1970: 1_800_057_600))  // 2027-01-16T00:00:00Z
        #expect(next.index == 2572)
    }
}
