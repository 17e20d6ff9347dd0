import Foundation

/// The calendar unit a notification repeats by.
///
/// `minute` and `hour` add absolute time; `day` and longer keep the wall-clock time.
public enum RepeatUnit: String, Codable, Sendable, CaseIterable {
    case minute, hour, day, week, month, quarter, year

    /// Whether the unit adds elapsed seconds rather than calendar fields.
    public var isAbsolute: Bool { self == .minute || self == .hour }
}

/// When a repeating notification stops.
public enum RepeatEnd: Hashable, Sendable {
    /// After this many occurrences in all (the first one included).
    case count(Int)
    /// No occurrence later than this instant.
    case until(Date)
    /// No occurrence later than this wall-clock time in the series' zone: for a floating
    /// notification, the device's zone at the time of each occurrence, so it follows the device.
    case untilWallClock(LocalDateTime)
}

/// How a notification repeats: every `every` `unit`s from its anchor, until `end`.
public struct RepeatRule: Hashable, Sendable {
    public var unit: RepeatUnit
    public var every: Int
    public var end: RepeatEnd?

    public init(unit: RepeatUnit, every: Int = 1, end: RepeatEnd? = nil) {
        self.unit = unit
        self.every = every
        self.end = end
    }
}
