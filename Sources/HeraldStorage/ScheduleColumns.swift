import Foundation
import HeraldCore

/// A notification's schedule as every backend stores it: the request's own fields as text, and
/// an end as a count, an instant in milliseconds, or a floating wall-clock time. One mapping, so
/// SQLite and PostgreSQL read back exactly what the API accepted.
public struct ScheduleColumns: Sendable, Equatable {
    /// How a repeat ends, in storage terms.
    public enum RepeatUntil: Sendable, Equatable {
        /// An absolute end, milliseconds since the epoch.
        case instant(Int64)
        /// A floating notification's end, kept as wall-clock text and read in the device's zone.
        case wallClock(String)
    }

    public var fireDate: String
    public var timeZone: String?
    public var repeatUnit: String?
    public var repeatEvery: Int?
    public var repeatCount: Int?
    public var repeatUntil: RepeatUntil?

    public init(fireDate: String, timeZone: String?, repeatUnit: String?, repeatEvery: Int?, repeatCount: Int?,
                repeatUntil: RepeatUntil?) {
        self.fireDate = fireDate
        self.timeZone = timeZone
        self.repeatUnit = repeatUnit
        self.repeatEvery = repeatEvery
        self.repeatCount = repeatCount
        self.repeatUntil = repeatUntil
    }

    /// The columns of a notification about to be stored.
    public init(_ notification: LocalNotification) {
        let rule = notification.repeatRule
        var count: Int?
        var until: RepeatUntil?
        switch rule?.end {
        case .count(let value)?: count = value
        case .until(let date)?: until = .instant(date.millisecondsSince1970)
        case .untilWallClock(let local)?: until = .wallClock(local.description)
        case nil: break
        }
        self.init(fireDate: notification.fireDate.fieldValue, timeZone: notification.timeZone.fieldValue,
                  repeatUnit: rule?.unit.rawValue, repeatEvery: rule?.every, repeatCount: count, repeatUntil: until)
    }

    /// The schedule these columns hold.
    ///
    /// - Throws: `StorageError.corrupt` when the fire date is neither an instant nor a wall-clock time.
    public func schedule() throws -> NotificationSchedule {
        let fireDate: FireDate
        if let instant = RFC3339.instant(from: self.fireDate) {
            fireDate = .instant(instant)
        } else if let local = LocalDateTime(parsing: self.fireDate) {
            fireDate = .wallClock(local)
        } else {
            throw StorageError.corrupt("notification fire_date '\(self.fireDate)'")
        }
        var repeatRule: RepeatRule?
        if let repeatUnit, let unit = RepeatUnit(rawValue: repeatUnit) {
            var end: RepeatEnd?
            if let repeatCount { end = .count(repeatCount) }
            switch repeatUntil {
            case .instant(let milliseconds)?: end = .until(Date(millisecondsSince1970: milliseconds))
            case .wallClock(let text)?: end = LocalDateTime(parsing: text).map(RepeatEnd.untilWallClock)
            case nil: break
            }
            repeatRule = RepeatRule(unit: unit, every: repeatEvery ?? 1, end: end)
        }
        return NotificationSchedule(fireDate: fireDate, timeZone: FireTimeZone(fieldValue: timeZone), repeatRule: repeatRule)
    }
}
