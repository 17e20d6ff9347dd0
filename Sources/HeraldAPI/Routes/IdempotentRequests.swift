import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHooks
import HeraldScheduler
import HTTPTypes
import Hummingbird
import Synchronization

/// `Idempotency-Key` on the API's creating POSTs (`POST /v1/push`, scheduling a notification), so
/// a client may resend a request whose answer it lost.
///
/// The first request with a key runs; a resend with the same key, from the same caller to the same
/// path, runs nothing and gets the first answer again, with `Idempotent-Replayed: true`. A resend
/// while the first is still running is 409 `idempotencyKeyInProgress`, and the same key with a
/// different body is 422 `idempotencyKeyReused` (the answer is kept with the body's SHA-256). A
/// request that is refused or fails is forgotten, so sending it again runs it. Keys are kept for a
/// day, in the same table as the signed hooks' keys (their scopes cannot collide: a hook's name
/// has no spaces).
struct IdempotentRequests: Sendable {
    /// Kept a day (``retention``).
    let keys: IdempotencyKeys
    let clock: any SchedulerClock
    let body: JSONBody

    static let retention: TimeInterval = 24 * 3600
    static let headerName = HTTPField.Name("Idempotency-Key")!
    static let replayedName = HTTPField.Name("Idempotent-Replayed")!
    static let maximumKeyLength = 255

    /// Runs `handler` at most once per `Idempotency-Key`; without the header, runs it as is. The
    /// handler gets the request with its body already read (to fingerprint it) and readable again.
    func run(_ request: Request, context: HeraldRequestContext,
             _ handler: (Request) async throws -> Response) async throws -> Response {
        guard let key = request.headers[Self.headerName] else { return try await handler(request) }
        guard !key.isEmpty, key.utf8.count <= Self.maximumKeyLength else {
            throw HeraldError.badRequest(.invalidIdempotencyKey, "Idempotency-Key must be 1 to \(Self.maximumKeyLength) bytes")
        }
        let scope = "api \(Self.caller(context.principal)) \(request.method.rawValue) \(request.uri.path)"
        let keys = ["key:" + key]
        let bytes = try await body.bytes(of: request)
        var request = request
        request.body = RequestBody(buffer: ByteBuffer(bytes: bytes))
        let fingerprint = SHA256.hash(Array(bytes)).map { String(format: "%02x", $0) }.joined()
        switch try await self.keys.claim(keys, scope: scope, now: clock.now()) {
        case .answered(let stored):
            return try Self.replay(stored, fingerprint: fingerprint)
        case .inProgress:
            throw HeraldError(.conflict, reason: .idempotencyKeyInProgress,
                              message: "a request with this Idempotency-Key is still being handled")
        case .claimed:
            break
        }
        let response: Response
        do {
            response = try await handler(request)
        } catch {
            await self.keys.release(keys, scope: scope)
            throw error
        }
        guard (200..<300).contains(response.status.code) else {
            await self.keys.release(keys, scope: scope)
            return response
        }
        let (answer, replayable) = try await Self.collect(response)
        let record = "\(response.status.code)\n\(fingerprint)\n" + answer
        try await self.keys.complete(keys, scope: scope, answer: record)
        return replayable
    }

    private static func caller(_ principal: Principal) -> String {
        switch principal {
        case .admin, .loopback: return "admin"
        case .app(let app): return "app:" + app
        case .metrics: return "metrics"
        }
    }

    /// The stored answer (its status, the request body's fingerprint, then the JSON body), or
    /// 422 `idempotencyKeyReused` when this request's body is not the one the key was used with.
    private static func replay(_ stored: String, fingerprint: String) throws -> Response {
        let parts = stored.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1] == fingerprint else {
            throw HeraldError.invalid(.idempotencyKeyReused,
                                      "this Idempotency-Key was used with a different request body; use a new key")
        }
        let status = Int(parts[0]).map { HTTPResponse.Status(code: $0) } ?? .ok
        let body = String(parts[2])
        return Response(status: status, headers: [.contentType: "application/json", replayedName: "true"],
                        body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// The response's body as text, and the same response to send (its body is read once here).
    private static func collect(_ response: Response) async throws -> (String, Response) {
        let collected = CollectedBody()
        try await response.body.write(CollectingWriter(collected: collected))
        let bytes = collected.bytes.withLock { $0 }
        var replayable = response
        replayable.body = .init(byteBuffer: ByteBuffer(bytes: bytes))
        return (String(decoding: bytes, as: UTF8.self), replayable)
    }
}

private final class CollectedBody: Sendable {
    let bytes = Mutex<[UInt8]>([])
}

private struct CollectingWriter: ResponseBodyWriter {
    let collected: CollectedBody

    mutating func write(_ buffer: ByteBuffer) async throws {
        collected.bytes.withLock { $0 += buffer.readableBytesView }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
