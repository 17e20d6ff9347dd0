import Foundation
import HeraldCore
import HeraldScheduler
import HeraldStorage
import HTTPTypes
import Hummingbird
import Synchronization

/// `Idempotency-Key` on the API's creating POSTs (`POST /v1/push`, scheduling a notification), so
/// a client may resend a request whose answer it lost.
///
/// The first request with a key runs; a resend with the same key, from the same caller to the same
/// path, runs nothing and gets the first answer again, with `Idempotent-Replayed: true`. A resend
/// while the first is still running is 409 `idempotencyKeyInProgress`. A request that is refused
/// or fails is forgotten, so sending it again runs it. Keys are kept for a day, in the same table
/// as the signed hooks' keys (their scopes cannot collide: a hook's name has no spaces).
struct IdempotentRequests: Sendable {
    let store: any HookStore
    let clock: any SchedulerClock
    /// How long an unfinished claim holds before a resend may take it over.
    let lease: TimeInterval

    static let retention: TimeInterval = 24 * 3600
    static let headerName = HTTPField.Name("Idempotency-Key")!
    static let replayedName = HTTPField.Name("Idempotent-Replayed")!
    static let maximumKeyLength = 255

    /// Runs `handler` at most once per `Idempotency-Key`; without the header, runs it as is.
    func run(_ request: Request, context: HeraldRequestContext,
             _ handler: () async throws -> Response) async throws -> Response {
        guard let key = request.headers[Self.headerName] else { return try await handler() }
        guard !key.isEmpty, key.utf8.count <= Self.maximumKeyLength else {
            throw HeraldError.badRequest("invalidIdempotencyKey", "Idempotency-Key must be 1 to \(Self.maximumKeyLength) bytes")
        }
        let scope = "api \(Self.caller(context.principal)) \(request.method.rawValue) \(request.uri.path)"
        let keys = ["key:" + key]
        switch try await store.claimIdempotencyKeys(hook: scope, keys: keys, now: clock.now(), retention: Self.retention,
                                                    lease: lease) {
        case .completed(let stored)?:
            return Self.replay(stored)
        case .inProgress?:
            throw HeraldError(.conflict, reason: "idempotencyKeyInProgress",
                              message: "a request with this Idempotency-Key is still being handled")
        case nil:
            break
        }
        let response: Response
        do {
            response = try await handler()
        } catch {
            await release(keys, scope: scope)
            throw error
        }
        guard (200..<300).contains(response.status.code) else {
            await release(keys, scope: scope)
            return response
        }
        let (body, replayable) = try await Self.collect(response)
        let store = self.store
        let record = "\(response.status.code)\n" + body
        // In a task of its own, so a request cut short after its change still stores the answer.
        try await Task { try await store.completeIdempotencyKeys(hook: scope, keys: keys, response: record) }.value
        return replayable
    }

    private func release(_ keys: [String], scope: String) async {
        let store = self.store
        await Task { try? await store.releaseIdempotencyKeys(hook: scope, keys: keys) }.value
    }

    private static func caller(_ principal: Principal) -> String {
        switch principal {
        case .admin, .loopback: return "admin"
        case .app(let app): return "app:" + app
        case .metrics: return "metrics"
        }
    }

    /// The stored answer: its status on the first line, then the JSON body.
    private static func replay(_ stored: String) -> Response {
        let newline = stored.firstIndex(of: "\n") ?? stored.endIndex
        let status = Int(stored[..<newline]).map { HTTPResponse.Status(code: $0) } ?? .ok
        let body = newline < stored.endIndex ? String(stored[stored.index(after: newline)...]) : ""
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
