import Foundation

/// The schedule part of a notification request, validated: fire date, zone and repeat rule.
///
/// Validation lives here, in the pure core, so that the API, the CLI and the webhooks all refuse
/// the same inputs with the same reasons.
public struct NotificationSchedule: Hashable, Sendable {
    public var fireDate: FireDate
    public var timeZone: FireTimeZone
    public var repeatRule: RepeatRule?

    /// The largest `every` accepted; larger multipliers are almost certainly mistakes.
    public static let maximumEvery = 100_000

    /// Reads and checks the request fields.
    ///
    /// - An instant (`Z` or an offset) goes with no zone; a wall-clock time needs an IANA zone or
    ///   `"floating"`. Mixing the two is refused rather than guessed at.
    /// - A wall-clock `until` is read in the notification's zone; for floating ones it stays a
    ///   wall-clock time, read in whatever zone the device is in.
    public init(fireDate text: String, timeZone zoneField: String?, repeatUnit: String?, every: Int?,
                count: Int?, until: String?, deviceTimeZone: TimeZone = .gmt) throws(HeraldError) {
        let zone = FireTimeZone(fieldValue: zoneField)
        let resolvedZone: TimeZone?
        switch zone {
        case .fixed(let identifier): resolvedZone = try DeviceRules.timeZone(identifier)
        case .floating: resolvedZone = deviceTimeZone
        case .absolute: resolvedZone = nil
        }

        if let instant = RFC3339.instant(from: text) {
            guard case .absolute = zone else {
                throw .invalid(.offsetWithTimeZone,
                               "fireDate '\(text)' carries an offset, so it cannot also have timeZone '\(zoneField ?? "")'; send a wall-clock time (YYYY-MM-DDTHH:MM[:SS]) with a zone, or an instant without one")
            }
            fireDate = .instant(instant)
        } else if let local = LocalDateTime(parsing: text) {
            guard zone != .absolute else {
                throw .invalid(.timeZoneRequired,
                               "fireDate '\(text)' is a wall-clock time; give timeZone (an IANA id or \"floating\"), or add Z or an offset")
            }
            fireDate = .wallClock(local)
        } else {
            throw .invalid(.invalidFireDate,
                           "fireDate '\(text)' is neither an RFC 3339 instant nor a wall-clock time YYYY-MM-DDTHH:MM[:SS]")
        }
        timeZone = zone

        guard let unitText = repeatUnit else {
            if every != nil || count != nil || until != nil {
                throw .invalid(.invalidRepeat, "repeat.every, repeat.count and repeat.until need repeat.unit")
            }
            repeatRule = nil
            return
        }
        guard let unit = RepeatUnit(rawValue: unitText) else {
            throw .invalid(.invalidRepeat,
                           "repeat.unit '\(unitText)' is not one of \(RepeatUnit.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let multiplier = every ?? 1
        guard (1...Self.maximumEvery).contains(multiplier) else {
            throw .invalid(.invalidRepeat, "repeat.every must be between 1 and \(Self.maximumEvery)")
        }
        var end: RepeatEnd?
        switch (count, until) {
        case (.some, .some):
            throw .invalid(.invalidRepeat, "give repeat.count or repeat.until, not both")
        case (let count?, nil):
            guard count >= 1 else { throw .invalid(.invalidRepeat, "repeat.count must be at least 1") }
            end = .count(count)
        case (nil, let untilText?):
            if let instant = RFC3339.instant(from: untilText) {
                end = .until(instant)
            } else if let local = LocalDateTime(parsing: untilText) {
                guard let resolvedZone else {
                    throw .invalid(.timeZoneRequired,
                                   "repeat.until '\(untilText)' is a wall-clock time but the fire date is an instant; add Z or an offset")
                }
                end = zone == .floating ? .untilWallClock(local) : .until(WallClock.instant(of: local, in: resolvedZone))
            } else {
                throw .invalid(.invalidRepeat, "repeat.until '\(untilText)' is not a date-time")
            }
        case (nil, nil):
            end = nil
        }
        repeatRule = RepeatRule(unit: unit, every: multiplier, end: end)
    }

    public init(fireDate: FireDate, timeZone: FireTimeZone, repeatRule: RepeatRule?) {
        self.fireDate = fireDate
        self.timeZone = timeZone
        self.repeatRule = repeatRule
    }

    /// The series, read in `deviceTimeZone` when floating.
    public func recurrence(deviceTimeZone: TimeZone) -> Recurrence {
        Recurrence(anchor: anchor(deviceTimeZone: deviceTimeZone), rule: repeatRule)
    }

    private func anchor(deviceTimeZone: TimeZone) -> RecurrenceAnchor {
        switch (fireDate, timeZone) {
        case (.instant(let date), _):
            return .instant(date)
        case (.wallClock(let local), .fixed(let identifier)):
            return .wallClock(local, TimeZone(identifier: identifier) ?? deviceTimeZone)
        case (.wallClock(let local), _):
            return .wallClock(local, deviceTimeZone)
        }
    }

    /// The first occurrence after `now`, or `fireDateInPast` when nothing is left to fire.
    public func firstOccurrence(after now: Date, deviceTimeZone: TimeZone) throws(HeraldError) -> (index: Int, date: Date) {
        guard let next = recurrence(deviceTimeZone: deviceTimeZone).firstOccurrence(after: now) else {
            throw .invalid(.fireDateInPast,
                           "the notification has no occurrence after now; use present to deliver it immediately")
        }
        return next
    }
}
