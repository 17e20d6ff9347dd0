/// A set of string values the server knows today, read leniently: a value a newer server
/// sends that this client does not know decodes as the type's `unknown` case (keeping the
/// text) instead of failing the whole answer.
///
/// Conforming types are enums with a case per known value and `unknown(String)`; they get
/// `Codable` and `CustomStringConvertible` from here.
public protocol OpenEnum: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible where RawValue == String {
    /// The value for `rawValue`: a known case, or `unknown(rawValue)`.
    init(rawValue: String)
}

extension OpenEnum {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The raw value.
    public var description: String { rawValue }
}
