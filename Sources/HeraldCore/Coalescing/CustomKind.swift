/// An event kind an app declares for itself, with the rule its events coalesce by.
///
/// Custom kinds let an app reuse the coalescer for its own state (a badge counter, a set of
/// changed record ids) without the server knowing what the values mean.
public struct CustomKind: Hashable, Sendable, Codable {
    /// The rules an app may choose; `connection` and `occurrence` stay built-in.
    public enum Rule: String, Codable, Sendable, CaseIterable {
        /// Any JSON value; the last one wins, nothing if it equals the last delivered.
        case latest
        /// A number; the sum since the last delivery, nothing if zero.
        case sum
        /// A string or an array of strings; the sorted union, nothing if empty.
        case union
        /// No value; each event flips, so pairs cancel.
        case toggle

        public var coalescingRule: CoalescingRule {
            switch self {
            case .latest: return .latest
            case .sum: return .sum
            case .union: return .union
            case .toggle: return .toggle
            }
        }
    }

    /// Longer names would only bloat every stored slot and delivered notification.
    public static let maximumNameLength = 64

    public var name: String
    public var rule: Rule
    /// Whether events carry a key, each key coalescing on its own.
    public var keyed: Bool

    public init(name: String, rule: Rule, keyed: Bool = false) {
        self.name = name
        self.rule = rule
        self.keyed = keyed
    }

    private enum CodingKeys: String, CodingKey { case name, rule, keyed }

    /// `keyed` may be left out in JSON: most custom kinds have no key.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        rule = try container.decode(Rule.self, forKey: .rule)
        keyed = try container.decodeIfPresent(Bool.self, forKey: .keyed) ?? false
    }

    /// Names are identifiers (a letter, then letters, digits, '.', '-' or '_'), so they read the
    /// same in JSON, URLs and logs; they must not shadow a built-in kind, even by case.
    func validateName() throws(HeraldError) {
        let bytes = name.utf8
        guard let first = bytes.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z"),
              bytes.count <= Self.maximumNameLength, Identifier.isValid(name)
        else {
            throw .invalid(.invalidCustomKind,
                           "custom kind names must be 1–\(Self.maximumNameLength) characters: a letter, then letters, digits, '.', '-' or '_'")
        }
        let lowered = name.lowercased()
        guard !EventKind.allCases.contains(where: { $0.rawValue.lowercased() == lowered }) else {
            throw .invalid(.invalidCustomKind, "'\(name)' is a built-in event kind")
        }
    }

    /// Checks a value for this kind and returns it in canonical form.
    func canonicalValue(_ value: JSONValue?) throws(HeraldError) -> JSONValue? {
        switch rule {
        case .latest:
            return try EventValidation.anyValue(value, kind: name)
        case .sum:
            return .number(try EventValidation.number(value, kind: name))
        case .union:
            return .array(try EventValidation.members(value, kind: name).map(JSONValue.string))
        case .toggle:
            return try EventValidation.noValue(value, kind: name)
        }
    }
}
