/// A JSON Pointer (RFC 6901): `""` is the whole document, `/a/0/b` walks keys and array indices.
///
/// Webhook templates use pointers to say where in a sender's body a value lives, so the sender's
/// JSON shape never has to change to fit Herald's.
public struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    /// The unescaped reference tokens, in order; empty for the whole document.
    public var tokens: [String]

    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses pointer text. Throws `invalidPointer` when it neither is empty nor starts with `/`, or
    /// when a `~` is not followed by `0` or `1` (the only two escapes RFC 6901 defines).
    public init(_ text: String) throws(HeraldError) {
        guard !text.isEmpty else {
            self.init(tokens: [])
            return
        }
        guard text.hasPrefix("/") else {
            throw .invalid(.invalidPointer, "JSON pointer \"\(text)\" must be empty or start with \"/\"")
        }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let token = Self.unescape(raw) else {
                throw .invalid(.invalidPointer, "JSON pointer \"\(text)\" has a \"~\" not followed by 0 or 1")
            }
            tokens.append(token)
        }
        self.init(tokens: tokens)
    }

    /// `~1` is `/` and `~0` is `~`, decoded in one left-to-right pass so `~01` is `~1`, not `/`.
    private static func unescape(_ raw: Substring) -> String? {
        guard raw.contains("~") else { return String(raw) }
        var result = ""
        var iterator = raw.makeIterator()
        while let character = iterator.next() {
            guard character == "~" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "0": result.append("~")
            case "1": result.append("/")
            default: return nil
            }
        }
        return result
    }

    /// The value this pointer names in `document`, or nil when any step is missing: an absent key,
    /// an index out of range or not in canonical form (`01`, `-`), or a step into a scalar.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Self.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// RFC 6901 indices are `0` or digits without a leading zero; `-` (past the end) names nothing
    /// that can be read.
    private static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              token == "0" || !token.hasPrefix("0") else { return nil }
        return Int(token)
    }

    /// The pointer text, re-escaped, so errors can quote the pointer as the template wrote it.
    public var description: String {
        tokens.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }
}

extension JSONPointer: Codable {
    /// Stored as its text, as a template writes it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
