/// Any JSON value: a notification's `userInfo`, a push's `aps` and `data`, a Live Activity's
/// attributes and content state, a coalesced event's value, a hook's template.
///
/// Literals build it directly:
///
/// ```swift
/// let userInfo: [String: JSONValue] = ["orderId": 42, "tags": ["new", "paid"], "gift": true]
/// ```
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // Integral numbers go out without a fraction, as the server writes them.
            if value.rounded() == value, abs(value) < 9.0e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string, if this is one.
    public var stringValue: String? { if case .string(let value) = self { return value }; return nil }
    /// The number, if this is one.
    public var numberValue: Double? { if case .number(let value) = self { return value }; return nil }
    /// The Boolean, if this is one.
    public var boolValue: Bool? { if case .bool(let value) = self { return value }; return nil }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { return value }; return nil }
    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { return value }; return nil }

    /// The member `key` of an object, else nil.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
