import Foundation
import HeraldCore
import HeraldCrypto
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

// A feedback receiver for the tests: a real HTTP server on a free loopback port that records
// every POST it gets and answers with whatever status the test sets.

final class FeedbackReceiver: Sendable {
    /// One request as the receiver saw it.
    struct Received: Sendable {
        var path: String
        var headers: [String: String]
        var body: Data
        var at: ContinuousClock.Instant

        func header(_ name: String) -> String? { headers[name.lowercased()] }

        var json: JSONValue { (try? JSONDecoder().decode(JSONValue.self, from: body)) ?? .null }
    }

    private let state = Mutex<(received: [Received], status: Int)>(([], 200))

    /// The status every request is answered with from now on.
    var status: Int {
        get { state.withLock { $0.status } }
        set { state.withLock { $0.status = newValue } }
    }

    /// Everything received so far, oldest first.
    var received: [Received] { state.withLock { $0.received } }

    /// Only what came to `path`.
    func received(at path: String) -> [Received] { received.filter { $0.path == path } }

    fileprivate func record(_ request: Request, body: Data) -> Int {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let entry = Received(path: request.uri.path, headers: headers, body: body, at: .now)
        return state.withLock { state in
            state.received.append(entry)
            return state.status
        }
    }

    fileprivate func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("**") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let status = record(request, body: Data(body.readableBytesView))
            return Response(status: HTTPResponse.Status(code: status))
        }
        return router
    }
}

/// Runs a receiver on a free loopback port for the length of `body`, which gets its base URL.
func withFeedbackReceiver<Value: Sendable>(
    _ body: @escaping @Sendable (FeedbackReceiver, String) async throws -> Value
) async throws -> Value {
    let receiver = FeedbackReceiver()
    var logger = Logger(label: "herald.feedback-receiver")
    logger.logLevel = .critical
    let application = Application(router: receiver.router(),
                                  configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
    return try await application.test(.live) { client in
        let port = try #require(client.port)
        return try await body(receiver, "http://127.0.0.1:\(port)")
    }
}

enum FeedbackFixture {
    static let secret = "feedback-signing-secret-4c1d"
}

/// Feedback settings for a guarded server: `urls`, signed with ``FeedbackFixture/secret``, on the
/// live transport so that the dispatcher runs.
func feedbackOptions(_ urls: [String], maxAttempts: Int? = nil, outboxLimit: Int? = nil,
                     events: Set<FeedbackType>? = nil) -> GuardOptions {
    var options = GuardOptions()
    options.transport = .live
    options.feedbackURLs = urls
    options.feedbackSecret = FeedbackFixture.secret
    options.feedbackMaxAttempts = maxAttempts
    options.feedbackOutboxLimit = outboxLimit
    options.feedbackEvents = events
    return options
}

extension GuardedHerald {
    /// Pushes to `token` through `POST /v1/push` as admin; with the token in the sandbox's
    /// `unregistered` fault this raises `token.invalid`.
    @discardableResult
    func push(to token: String, app: String = GuardApps.alarm, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let reply = try await post("/v1/push", json: ["notifications": [["app": app, "tokens": [token], "aps": ["alert": "hello"]]]])
        try #require(reply.status == .ok, "\(reply.text)", sourceLocation: sourceLocation)
        return reply.json["results"][0]
    }

    /// The outbox messages, optionally in one state, and whether the outbox says it is full.
    func outbox(state: String? = nil) async throws -> (full: Bool?, messages: [JSONValue]) {
        let reply = try await get("/v1/feedback/outbox" + (state.map { "?state=\($0)" } ?? ""))
        try #require(reply.status == .ok, "\(reply.text)")
        return (reply.json["full"].bool, reply.json["messages"].array ?? [])
    }
}

/// Checks a received feedback POST: signed with `secret` (checked now, default tolerance), the
/// Herald-Event header naming its type, and the documented body.
func expectSignedFeedback(_ request: FeedbackReceiver.Received, type: String, secret: String = FeedbackFixture.secret,
                          sourceLocation: SourceLocation = #_sourceLocation) {
    let now = Int(Date().timeIntervalSince1970)
    #expect(throws: Never.self, "the Herald-Signature does not verify with feedback.secret", sourceLocation: sourceLocation) {
        try WebhookSignature.verify(header: request.header(WebhookSignature.headerName), body: Array(request.body),
                                    secrets: [secret], now: now)
    }
    #expect(request.header("Herald-Event") == type, sourceLocation: sourceLocation)
    #expect(request.header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
    let body = request.json
    #expect(body["id"].int != nil, "body: \(String(decoding: request.body, as: UTF8.self))", sourceLocation: sourceLocation)
    #expect(body["type"].string == type, sourceLocation: sourceLocation)
    #expect(body["app"].string != nil, sourceLocation: sourceLocation)
    #expect(body["createdAt"].string.flatMap(RFC3339.instant(from:)) != nil, "createdAt is RFC 3339",
            sourceLocation: sourceLocation)
    if case .object = body["data"] {} else {
        Issue.record("data is not an object", sourceLocation: sourceLocation)
    }
}
