/// A coding key named at run time: the custom keys of a payload, or a key chosen per request.
public struct AnyCodingKey: CodingKey {
    public var stringValue: String
    public var intValue: Int? { nil }

    public init(_ name: String) {
        stringValue = name
    }

    public init(stringValue: String) {
        self.stringValue = stringValue
    }

    public init?(intValue: Int) { nil }
}
