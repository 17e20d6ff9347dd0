import COpenSSL

/// A failure inside OpenSSL, with the messages from its error queue.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var details: String

    /// Drains OpenSSL's thread-local error queue into one error.
    static func drain(_ operation: String) -> OpenSSLError {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return OpenSSLError(operation: operation, details: messages.isEmpty ? "no detail" : messages.joined(separator: "; "))
    }

    public var description: String { "\(operation) failed: \(details)" }
}
