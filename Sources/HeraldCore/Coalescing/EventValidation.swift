/// Checks shared by built-in and custom kinds, so that both refuse bad input with the same
/// stable reasons (`invalidEventValue`, `unexpectedEventValue`, `missingEventKey`, ...).
enum EventValidation {
    /// Keys name accessories, screens and settings; a bound keeps one slot's key small.
    static let maximumKeyLength = 200

    /// Keyed kinds need a non-empty key; the others must not carry one, so that a typo in a
    /// client cannot silently split one kind into many slots.
    static func checkKey(_ key: String?, kind: String, keyed: Bool) throws(HeraldError) {
        switch (keyed, key) {
        case (true, nil):
            throw .invalid(.missingEventKey, "'\(kind)' events need a key")
        case (true, let key?):
            guard !key.isEmpty, key.utf8.count <= maximumKeyLength else {
                throw .invalid(.invalidEventKey, "'\(kind)' keys must be 1–\(maximumKeyLength) bytes")
            }
        case (false, nil):
            return
        case (false, .some):
            throw .invalid(.unexpectedEventKey, "'\(kind)' events take no key")
        }
    }

    /// Any JSON value, as long as there is one and it can be stored as JSON (no NaN or infinity).
    static func anyValue(_ value: JSONValue?, kind: String) throws(HeraldError) -> JSONValue {
        guard let value else {
            throw .invalid(.invalidEventValue, "'\(kind)' events need a value")
        }
        guard value.hasOnlyFiniteNumbers else {
            throw .invalid(.invalidEventValue, "'\(kind)' values must be finite numbers")
        }
        return value
    }

    /// Valueless kinds accept no value; an explicit `null` is read as none, since it says nothing.
    static func noValue(_ value: JSONValue?, kind: String) throws(HeraldError) -> JSONValue? {
        switch value {
        case nil, .null?: return nil
        default: throw .invalid(.unexpectedEventValue, "'\(kind)' events take no value")
        }
    }

    /// A string, optionally one of a closed set.
    static func string(_ value: JSONValue?, kind: String, oneOf allowed: [String]? = nil) throws(HeraldError) -> String {
        guard case .string(let text)? = value, allowed.map({ $0.contains(text) }) ?? true else {
            let expected = allowed.map { "one of " + $0.joined(separator: ", ") } ?? "a string"
            throw .invalid(.invalidEventValue, "'\(kind)' values must be \(expected)")
        }
        return text
    }

    /// A finite number.
    static func number(_ value: JSONValue?, kind: String) throws(HeraldError) -> Double {
        guard case .number(let number)? = value, number.isFinite else {
            throw .invalid(.invalidEventValue, "'\(kind)' values must be a number")
        }
        return number
    }

    /// A string or an array of strings: the members a union kind adds.
    static func members(_ value: JSONValue?, kind: String) throws(HeraldError) -> [String] {
        switch value {
        case .string(let text)?:
            return [text]
        case .array(let items)?:
            var members: [String] = []
            members.reserveCapacity(items.count)
            for item in items {
                guard case .string(let text) = item else { break }
                members.append(text)
            }
            if members.count == items.count { return members }
        default:
            break
        }
        throw .invalid(.invalidEventValue, "'\(kind)' values must be a string or an array of strings")
    }
}

extension JSONValue {
    /// JSONEncoder refuses NaN and infinity, and queues are stored as JSON.
    var hasOnlyFiniteNumbers: Bool {
        switch self {
        case .null, .bool, .string: return true
        case .number(let number): return number.isFinite
        case .array(let items): return items.allSatisfy(\.hasOnlyFiniteNumbers)
        case .object(let members): return members.values.allSatisfy(\.hasOnlyFiniteNumbers)
        }
    }
}
