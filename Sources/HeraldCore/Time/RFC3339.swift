import Foundation

/// RFC 3339 instants: `2026-12-01T06:30:00Z`, `2026-12-01T07:30:00.250+01:00`.
///
/// Hand-written because every API response formats many of them, and because we must tell an
/// instant (with an offset) apart from a wall-clock time (without one) to pick the time-zone rule.
public enum RFC3339 {
    /// Parses a date-time that carries `Z` or a numeric offset. Returns nil otherwise.
    public static func instant(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 17 else { return nil }
        // The part before the zone designator is a wall-clock time with optional fraction.
        var zoneStart = bytes.count - 1
        let offsetSeconds: Int
        if bytes[zoneStart] == UInt8(ascii: "Z") || bytes[zoneStart] == UInt8(ascii: "z") {
            offsetSeconds = 0
        } else {
            zoneStart = bytes.count - 6
            guard zoneStart > 0, bytes[zoneStart] == UInt8(ascii: "+") || bytes[zoneStart] == UInt8(ascii: "-"),
                  bytes[zoneStart + 3] == UInt8(ascii: ":"),
                  let hours = digits(bytes, zoneStart + 1, 2), let minutes = digits(bytes, zoneStart + 4, 2),
                  hours <= 23, minutes <= 59
            else { return nil }
            let magnitude = hours * 3600 + minutes * 60
            offsetSeconds = bytes[zoneStart] == UInt8(ascii: "-") ? -magnitude : magnitude
        }
        var wallEnd = zoneStart
        var fraction = 0.0
        if let dot = bytes[0..<zoneStart].firstIndex(of: UInt8(ascii: ".")) {
            guard dot == 19, zoneStart - dot >= 2, zoneStart - dot <= 10,
                  let value = digits(bytes, dot + 1, zoneStart - dot - 1)
            else { return nil }
            fraction = Double(value) / pow(10, Double(zoneStart - dot - 1))
            wallEnd = dot
        }
        guard let wall = LocalDateTime(parsing: String(decoding: bytes[0..<wallEnd], as: UTF8.self)) else { return nil }
        let seconds = Double(wall.secondsSinceEpochAsUTC - offsetSeconds) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// Formats an instant in UTC with `Z`; milliseconds appear only when the instant has them.
    public static func string(from date: Date) -> String {
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        return string(fromMilliseconds: totalMilliseconds)
    }

    public static func string(fromMilliseconds totalMilliseconds: Int64) -> String {
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let seconds = Int((totalMilliseconds - Int64(milliseconds)) / 1000)
        let wall = LocalDateTime(secondsSinceEpochAsUTC: seconds)
        var text = wall.description
        if milliseconds != 0 {
            let ms = String(milliseconds)
            text += "." + String(repeating: "0", count: 3 - ms.count) + ms
        }
        return text + "Z"
    }

    private static func digits(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for i in start..<(start + count) {
            let b = bytes[i]
            guard b >= 48, b <= 57 else { return nil }
            value = value * 10 + Int(b - 48)
        }
        return value
    }
}

extension LocalDateTime {
    /// Seconds since the epoch if this wall-clock time were read in UTC.
    public var secondsSinceEpochAsUTC: Int {
        CivilCalendar.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The UTC wall-clock time `seconds` after the epoch.
    public init(secondsSinceEpochAsUTC seconds: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let date = CivilCalendar.date(days: days)
        self.init(year: date.year, month: date.month, day: date.day,
                  hour: secondOfDay / 3600, minute: (secondOfDay % 3600) / 60, second: secondOfDay % 60)
    }
}
