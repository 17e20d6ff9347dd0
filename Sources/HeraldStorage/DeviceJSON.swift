import Foundation
import HeraldCore

/// The JSON text columns of a device row (its Web Push subscription, push-to-start tokens,
/// activities, broadcast channel) and an app's custom kinds, shared by both stores so the two
/// write and read the same text.
public enum DeviceJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// The column's text for `value`; nil stays NULL.
    ///
    /// - Throws: `EncodingError` if the value cannot be written as JSON.
    public static func encode<Value: Encodable>(_ value: Value?) throws -> String? {
        try value.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    }

    /// The value a column's text holds; NULL reads as nil.
    ///
    /// - Throws: `DecodingError` when the text is not a `Value` (a corrupt row).
    public static func decode<Value: Decodable>(_ text: String?) throws -> Value? {
        try text.map { try JSONDecoder().decode(Value.self, from: Data($0.utf8)) }
    }

    /// An app's custom event kinds from their column: most apps have none, stored as `[]`, and
    /// the schedule path reads the app on every request, so that text is not decoded.
    ///
    /// - Throws: `DecodingError` when the text is not a list of kinds (a corrupt row).
    public static func customKinds(_ text: String?) throws -> [CustomKind] {
        guard let text, text != "[]" else { return [] }
        return try JSONDecoder().decode([CustomKind].self, from: Data(text.utf8))
    }
}
