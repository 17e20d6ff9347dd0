import Foundation

/// The JSON text columns of a device row (its Web Push subscription, push-to-start tokens,
/// activities, broadcast channel), shared by both stores so the two write the same text.
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
}
