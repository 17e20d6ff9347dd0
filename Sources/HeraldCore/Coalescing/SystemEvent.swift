/// A change a device reports, such as a new orientation or a setting that changed.
///
/// It mirrors the system notifications iOS posts to an app. `key` says which thing changed for
/// kinds that track several (an accessory id, a screen id, a setting name); `value` is the new
/// state. An explicit JSON `null` is a value (`.null`, e.g. a signed-out ubiquity identity),
/// while an absent `value` means the event carries none: the two survive a JSON round trip apart.
public struct SystemEvent: Hashable, Sendable, Codable {
    public var kind: String
    public var key: String?
    public var value: JSONValue?

    public init(kind: String, key: String? = nil, value: JSONValue? = nil) {
        self.kind = kind
        self.key = key
        self.value = value
    }

    private enum CodingKeys: String, CodingKey { case kind, key, value }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        key = try container.decodeIfPresent(String.self, forKey: .key)
        // `decodeIfPresent` would turn `null` into nil; presence of the key is what counts.
        value = container.contains(.value) ? try container.decode(JSONValue.self, forKey: .value) : nil
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(key, forKey: .key)
        try container.encodeIfPresent(value, forKey: .value)
    }
}
