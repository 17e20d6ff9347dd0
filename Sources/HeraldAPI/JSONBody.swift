import Foundation
import HeraldCore
import Hummingbird

/// Reading request bodies: bounded in size, strict JSON, errors with reasons.
struct JSONBody {
    let maximumBytes: Int

    /// Collects the body, refusing it with `bodyTooLarge` once it passes the limit.
    func bytes(of request: Request) async throws -> Data {
        var collected = Data()
        for try await buffer in request.body {
            guard collected.count + buffer.readableBytes <= maximumBytes else {
                throw HeraldError(.tooLarge, reason: .bodyTooLarge,
                                  message: "request body is over the limit of \(maximumBytes) bytes")
            }
            collected.append(contentsOf: buffer.readableBytesView)
        }
        return collected
    }

    /// Decodes the body as `T`. Malformed JSON is `invalidJSON` (400); a field of the wrong type
    /// or a missing required field is `invalidField` (422) naming the field.
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let data = try await bytes(of: request)
        guard !data.isEmpty else {
            throw HeraldError.badRequest(.invalidJSON, "the request needs a JSON body")
        }
        return try Self.decode(type, from: data)
    }

    /// Decodes bytes already read, with the same reasons as ``decode(_:from:)-(_,Request)``.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw Self.describe(error)
        }
    }

    static func describe(_ error: DecodingError) -> HeraldError {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .badRequest(.invalidJSON, "the body is not valid JSON")
        case .dataCorrupted(let context):
            return .invalid(.invalidField, "\(path(context.codingPath)): \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return .invalid(.missingField, "\(field) is required")
        case .typeMismatch(let expected, let context):
            return .invalid(.invalidField, "\(path(context.codingPath)) must be \(Self.name(of: expected))")
        case .valueNotFound(let expected, let context):
            return .invalid(.invalidField, "\(path(context.codingPath)) must be \(Self.name(of: expected)), not null")
        @unknown default:
            return .badRequest(.invalidJSON, "the body could not be read")
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default: return "a \(type)".replacingOccurrences(of: "Swift.", with: "")
        }
    }
}

extension Response {
    /// A JSON response with the given status.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
