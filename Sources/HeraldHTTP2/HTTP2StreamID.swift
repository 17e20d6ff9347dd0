/// A stream's id on the wire, typed so it is never confused with a count or a request number.
public struct HTTP2StreamID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static func < (lhs: HTTP2StreamID, rhs: HTTP2StreamID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "\(rawValue)" }
}
