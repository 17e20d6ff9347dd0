/// Template text such as `"Order {/order/id} shipped"`: literal runs and `{/pointer}` placeholders.
///
/// Escaping: `{{` is a literal `{`. A `}` outside a placeholder is literal as it stands, so only
/// one escape is needed. A placeholder runs to the first `}`, so a key containing `}` cannot be
/// named in text (RFC 6901 has no escape for it); copy such a value through `data` instead.
/// `{` followed by anything but `/` or `{` is refused rather than kept, since `{name}` is far more
/// likely a mistyped placeholder than intended text.
struct TemplateText: Hashable, Sendable {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case placeholder(JSONPointer)
    }

    var segments: [Segment]

    /// Parses `text`; throws `invalidTemplate` naming `field`.
    init(_ text: String, field: String) throws(HeraldError) {
        var segments: [Segment] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            guard character == "{" else {
                literal.append(character)
                continue
            }
            if index < text.endIndex, text[index] == "{" {
                literal.append("{")
                index = text.index(after: index)
                continue
            }
            guard let close = text[index...].firstIndex(of: "}") else {
                throw .invalid(.invalidTemplate, "template field \(field): \"{\" is never closed; write \"{{\" for a literal \"{\"")
            }
            let pointerText = String(text[index..<close])
            guard pointerText.hasPrefix("/") else {
                throw .invalid(.invalidTemplate,
                               "template field \(field): placeholders are {/pointer}, not {\(pointerText)}; write \"{{\" for a literal \"{\"")
            }
            let pointer: JSONPointer
            do {
                pointer = try JSONPointer(pointerText)
            } catch {
                throw .invalid(.invalidTemplate, "template field \(field): \(error.message)")
            }
            if !literal.isEmpty {
                segments.append(.literal(literal))
                literal = ""
            }
            segments.append(.placeholder(pointer))
            index = text.index(after: close)
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        self.segments = segments
    }

    /// The text with each placeholder replaced from `document`; throws `templateFailed` naming the
    /// pointer that is missing or holds an array, object or null.
    func render(with document: JSONValue, field: String) throws(HeraldError) -> String {
        var result = ""
        for segment in segments {
            switch segment {
            case .literal(let text):
                result += text
            case .placeholder(let pointer):
                guard let value = pointer.resolve(in: document) else {
                    throw TemplateFailure.missing(pointer, field: field)
                }
                guard let text = value.scalarText else {
                    throw TemplateFailure.wrongType(pointer, field: field, expected: "a string, number or boolean", found: value)
                }
                result += text
            }
        }
        return result
    }
}

extension JSONValue {
    /// Strings as they are, numbers and booleans as their JSON text; nil for null and containers,
    /// which have no single obvious rendering in a title or an idempotency key.
    var scalarText: String? {
        switch self {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            // As JSONValue encodes it: integral numbers without a trailing ".0".
            if number.rounded() == number, abs(number) < 9.0e15 { return String(Int64(number)) }
            return String(number)
        case .null, .array, .object: return nil
        }
    }

    /// A short name for error messages.
    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// The `templateFailed` errors, worded the same everywhere and always quoting the pointer.
enum TemplateFailure {
    static func missing(_ pointer: JSONPointer, field: String) -> HeraldError {
        .invalid(.templateFailed, "template field \(field): \"\(pointer)\" is missing from the body")
    }

    static func wrongType(_ pointer: JSONPointer, field: String, expected: String, found: JSONValue) -> HeraldError {
        .invalid(.templateFailed, "template field \(field): \"\(pointer)\" must be \(expected), not \(found.typeName)")
    }
}
