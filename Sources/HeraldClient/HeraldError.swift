import Foundation

/// An error thrown by ``HeraldClient``.
///
/// The server answers every refusal with a stable machine-readable `reason` and a message for
/// people (`{"error": {"reason": ..., "message": ...}}`); that is ``server(status:reason:message:)``.
/// A server that could not be reached is ``transport(url:description:)``, and an answer that is
/// not the JSON this client expects is ``decoding(type:description:)``.
///
/// ```swift
/// do {
///     _ = try await client.device(app: "com.example.alarm", device: "phone-1")
/// } catch HeraldError.server(status: 404, reason: "deviceNotFound", _) {
///     // register it
/// }
/// ```
public enum HeraldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused the request: its HTTP status, `reason` and `message`.
    ///
    /// A non-2xx answer without the JSON error shape has reason `httpError` and the body as message.
    case server(status: Int, reason: String, message: String)
    /// The server could not be reached, or the connection failed before an answer arrived.
    case transport(url: URL, description: String)
    /// The answer could not be decoded as the expected type.
    case decoding(type: String, description: String)
    /// The request could not be built (a base URL and path that make no URL, or a body that does not encode).
    case invalidRequest(String)

    /// The HTTP status of a ``server(status:reason:message:)`` refusal, else nil.
    public var status: Int? {
        if case .server(let status, _, _) = self { return status }
        return nil
    }

    /// The server's machine-readable reason (`deviceNotFound`, `invalidState`...), else nil.
    public var reason: String? {
        if case .server(_, let reason, _) = self { return reason }
        return nil
    }

    /// A human-readable message, whatever the case.
    public var message: String {
        switch self {
        case .server(_, _, let message): return message
        case .transport(_, let description): return description
        case .decoding(_, let description): return description
        case .invalidRequest(let description): return description
        }
    }

    /// `reason: message (HTTP status)` for a refusal, else what went wrong.
    public var description: String {
        switch self {
        case .server(let status, let reason, let message): return "\(reason): \(message) (HTTP \(status))"
        case .transport(let url, let description): return "cannot reach the Herald server at \(url.absoluteString): \(description)"
        case .decoding(let type, let description): return "cannot decode \(type) from the server's answer: \(description)"
        case .invalidRequest(let description): return "invalid request: \(description)"
        }
    }

    /// The refusal a non-2xx answer stands for, read from its `{"error": {...}}` body.
    static func refusal(status: Int, body: Data) -> HeraldError {
        struct Envelope: Decodable {
            struct Detail: Decodable { var reason: String?; var message: String? }
            var error: Detail?
        }
        let detail = (try? JSONDecoder().decode(Envelope.self, from: body))?.error
        return .server(status: status, reason: detail?.reason ?? "httpError",
                       message: detail?.message ?? String(decoding: body, as: UTF8.self))
    }
}
