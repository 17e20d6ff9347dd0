/// Rules for the identifiers clients choose: app bundle ids, device ids, notification ids.
///
/// They appear in URL paths, so they are limited to characters that need no escaping.
public enum Identifier {
    public static let maximumLength = 200

    public static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maximumLength else { return false }
        return text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }

    /// Throws `invalidId` naming the field when `text` is not a valid identifier.
    public static func validate(_ text: String, field: String) throws(HeraldError) {
        guard isValid(text) else {
            throw .invalid(.invalidId, "\(field) must be 1–\(maximumLength) characters of A–Z, a–z, 0–9, '.', '-' or '_'")
        }
    }
}
