import Foundation
import HeraldCore
import Testing

// "With "floating", it is wall-clock time in the device's current zone, and a time-zone change
// reported by the device re-times it." Its end is a wall-clock time too, read in the same zone.

@Suite("A floating notification's until follows the device")
struct FloatingEndTests {
    static let anchor = LocalDateTime(parsing: "2026-12-01T08:00:00")!
    static let until = LocalDateTime(parsing: "2026-12-03T09:00:00")!

    @Test("A wall-clock until on a floating notification stays wall-clock, not an instant frozen at scheduling")
    func parsedAsWallClock() throws {
        let schedule = try NotificationSchedule(fireDate: "2026-12-01T08:00", timeZone: "floating", repeatUnit: "day",
                                                every: nil, count: nil, until: "2026-12-03T09:00",
                                                deviceTimeZone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(schedule.repeatRule?.end == .untilWallClock(Self.until))
        let fixed = try NotificationSchedule(fireDate: "2026-12-01T08:00", timeZone: "Asia/Tokyo", repeatUnit: "day",
                                             every: nil, count: nil, until: "2026-12-03T09:00")
        #expect(fixed.repeatRule?.end == .until(WallClock.instant(of: Self.until, in: TimeZone(identifier: "Asia/Tokyo")!)),
                "a fixed zone never changes, so its until is an instant")
    }

    @Test("Its last occurrence is the last one before the until in whatever zone the device is in",
          arguments: ["Asia/Tokyo", "Europe/Paris", "America/New_York", "Pacific/Honolulu"])
    func endFollowsZone(zone: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let recurrence = Recurrence(anchor: .wallClock(Self.anchor, timeZone),
                                    rule: RepeatRule(unit: .day, end: .untilWallClock(Self.until)))
        #expect(recurrence.occurrence(2) == WallClock.instant(of: LocalDateTime(parsing: "2026-12-03T08:00:00")!, in: timeZone))
        #expect(recurrence.occurrence(3) == nil, "Dec 4 08:00 is after Dec 3 09:00 on the device's clock")
    }
}
