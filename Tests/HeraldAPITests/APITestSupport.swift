import Foundation
import HeraldAPI
import HeraldComposition
import HeraldCore
import HeraldScheduler
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

// Shared fixtures for the HTTP API tests: a Herald server in this process on a fresh data
// directory, a clock moved by hand, and a small client that speaks JSON.

/// Instants the tests are written around.
enum Moment {
    /// The server's "now" unless a test says otherwise.
    static let now = instant("2026-11-01T00:00:00Z")

    static func instant(_ text: String) -> Date {
        guard let date = RFC3339.instant(from: text) else { fatalError("bad test instant \(text)") }
        return date
    }
}

/// The app and device most tests work on.
enum Fixture {
    static let app = "com.example.alarm"
    static let device = "iphone-1"
    static let devicePath = "/v1/apps/\(app)/devices/\(device)"
    static let notifications = "\(devicePath)/notifications"
}

/// One running in-process server and what a test may do to it.
struct Herald: Sendable {
    let server: HeraldServer
    let clock: ManualClock
    let api: API
    let dataDirectory: String

    /// Registers the fixture app (with an overflow policy) and its device in `timeZone`.
    func registerDevice(app: String = Fixture.app, device: String = Fixture.device,
                        timeZone: String = "Europe/Paris", overflow: String? = nil) async throws {
        let appBody: [String: Any] = overflow.map { ["overflow": $0] } ?? [:]
        let appReply = try await api.put("/v1/apps/\(app)", json: appBody)
        try #require(appReply.status == .created || appReply.status == .ok, "app registration failed: \(appReply.text)")
        let deviceReply = try await api.put("/v1/apps/\(app)/devices/\(device)", json: ["timeZone": timeZone])
        try #require(deviceReply.status == .created || deviceReply.status == .ok,
                     "device registration failed: \(deviceReply.text)")
    }

    /// Schedules a notification on the fixture device and requires that it was stored.
    @discardableResult
    func schedule(_ fields: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        let reply = try await api.post(Fixture.notifications, json: fields)
        try #require(reply.status == .created, "scheduling failed: \(reply.text)", sourceLocation: sourceLocation)
        return reply
    }

    /// The fixture device's pending notifications, as the list endpoint returns them.
    func pending() async throws -> [JSONValue] {
        let reply = try await api.get(Fixture.notifications)
        try #require(reply.status == .ok)
        return reply.json["notifications"].array ?? []
    }

    /// The fixture device's deliveries, newest first.
    func deliveries(limit: Int? = nil) async throws -> [JSONValue] {
        let reply = try await api.get("\(Fixture.devicePath)/deliveries" + (limit.map { "?limit=\($0)" } ?? ""))
        try #require(reply.status == .ok)
        return reply.json["deliveries"].array ?? []
    }

    /// Everything the API shows about the fixture app and device: used to prove that a refused
    /// request changed nothing. Bodies are compared as JSON values, so key order does not matter.
    func storedState(app: String = Fixture.app, device: String = Fixture.device) async throws -> [StoredView] {
        let devicePath = "/v1/apps/\(app)/devices/\(device)"
        var views: [StoredView] = []
        for path in ["/v1/apps/\(app)", devicePath, "\(devicePath)/notifications", "\(devicePath)/deliveries?limit=1000"] {
            let reply = try await api.get(path)
            views.append(StoredView(path: path, status: reply.status.code, body: reply.json))
        }
        return views
    }

    /// Sends a request that must be refused with `status` and `reason`, and checks that the
    /// refusal is a JSON error body and that nothing stored changed.
    @discardableResult
    func expectRefusal(_ method: HTTPRequest.Method, _ path: String, body: String?,
                       status: HTTPResponse.Status, reason: String,
                       app: String = Fixture.app, device: String = Fixture.device,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        let before = try await storedState(app: app, device: device)
        let reply = try await api.send(method, path, body: body.map { Data($0.utf8) })
        expectError(reply, status: status, reason: reason, sourceLocation: sourceLocation)
        let after = try await storedState(app: app, device: device)
        #expect(after == before, "a refused request changed what is stored", sourceLocation: sourceLocation)
        return reply
    }

    /// As ``expectRefusal(_:_:body:status:reason:app:device:sourceLocation:)`` with a JSON object body.
    @discardableResult
    func expectRefusal(_ method: HTTPRequest.Method, _ path: String, json: [String: Any],
                       status: HTTPResponse.Status, reason: String,
                       app: String = Fixture.app, device: String = Fixture.device,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        try await expectRefusal(method, path, body: API.text(json), status: status, reason: reason,
                                app: app, device: device, sourceLocation: sourceLocation)
    }
}

/// One GET of the stored-state snapshot.
struct StoredView: Hashable, Sendable, CustomStringConvertible {
    var path: String
    var status: Int
    var body: JSONValue

    var description: String { "\(path) → \(status)" }
}

/// Checks the error shape every refusal shares: `{"error": {"reason", "message"}}`.
func expectError(_ reply: Reply, status: HTTPResponse.Status, reason: String,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "body: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply.json["error"]["reason"].string == reason, "body: \(reply.text)", sourceLocation: sourceLocation)
    #expect(!(reply.json["error"]["message"].string ?? "").isEmpty, "an error needs a human message",
            sourceLocation: sourceLocation)
    #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
}

/// Configuration tweaks a test may ask for.
struct ServerOptions: Sendable {
    var maxBodyBytes: Int?
    var lateAfterMilliseconds: Int?
}

/// How the test talks to the server.
enum Transport {
    /// Requests go straight to the router; the engine's own timer loop does not run, so only
    /// ``SchedulerEngine/fireDueBatch()`` fires anything. Deterministic.
    case router
    /// The assembled application (HTTP server plus the engine as a service) on a real socket.
    case live
}

/// Starts a server on `dataDirectory` (a fresh temporary one when nil, removed afterwards) with a
/// ManualClock at `now`, and runs `body` against it.
@discardableResult
func withHerald<Value: Sendable>(
    now: Date = Moment.now, dataDirectory: String? = nil, options: ServerOptions = .init(),
    transport: Transport = .router,
    _ body: @escaping @Sendable (Herald) async throws -> Value
) async throws -> Value {
    let directory = dataDirectory ?? TemporaryDirectory.make()
    defer { if dataDirectory == nil { TemporaryDirectory.remove(directory) } }
    var configuration = ServerConfiguration()
    configuration.dataDirectory = directory
    configuration.listenPort = 0
    if let maxBodyBytes = options.maxBodyBytes { configuration.maxBodyBytes = maxBodyBytes }
    if let lateAfter = options.lateAfterMilliseconds { configuration.lateAfterMilliseconds = lateAfter }
    let clock = ManualClock(now: now)
    var logger = Logger(label: "herald.tests")
    logger.logLevel = .warning
    let server = try await HeraldServer(configuration: configuration, clock: clock, logger: logger)
    let run: @Sendable (any TestClientProtocol) async throws -> Value = { client in
        try await body(Herald(server: server, clock: clock, api: API(client: client), dataDirectory: directory))
    }
    switch transport {
    case .router:
        let application = Application(router: server.makeRouter(), logger: logger)
        return try await application.test(.router, run)
    case .live:
        return try await server.makeApplication().test(.live, run)
    }
}

enum TemporaryDirectory {
    static func make() -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("herald-api-tests-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A thin JSON client over HummingbirdTesting's client.
struct API: Sendable {
    let client: any TestClientProtocol

    func send(_ method: HTTPRequest.Method, _ path: String, body: Data? = nil) async throws -> Reply {
        var headers: HTTPFields = [:]
        if body != nil { headers[.contentType] = "application/json" }
        let response = try await client.executeRequest(uri: path, method: method, headers: headers,
                                                       body: body.map { ByteBuffer(bytes: $0) })
        return Reply(status: response.status, headers: response.headers, body: Data(response.body.readableBytesView))
    }

    func get(_ path: String) async throws -> Reply { try await send(.get, path) }
    func delete(_ path: String) async throws -> Reply { try await send(.delete, path) }
    func put(_ path: String, json: [String: Any]) async throws -> Reply { try await send(.put, path, body: Self.encode(json)) }
    func post(_ path: String, json: [String: Any]) async throws -> Reply { try await send(.post, path, body: Self.encode(json)) }

    static func encode(_ json: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
    }

    static func text(_ json: [String: Any]) -> String {
        String(decoding: encode(json), as: UTF8.self)
    }
}

/// A response: status, headers and the body, readable as JSON.
struct Reply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON; `.null` when it is empty or not JSON.
    var json: JSONValue { (try? JSONDecoder().decode(JSONValue.self, from: body)) ?? .null }
}

/// Reading JSON in tests: `reply.json["error"]["reason"].string`.
extension JSONValue {
    subscript(key: String) -> JSONValue {
        if case .object(let object) = self { return object[key] ?? .null }
        return .null
    }

    subscript(index: Int) -> JSONValue {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return .null
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var int: Int? {
        if case .number(let value) = self, value.rounded() == value { return Int(value) }
        return nil
    }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    var isNull: Bool { self == .null }
}

/// A one-shot notification body with an alert.
func notification(id: String? = nil, fireDate: String, timeZone: String? = nil, repeat rule: [String: Any]? = nil,
                  title: String? = nil, body: String = "Time to get up") -> [String: Any] {
    var alert: [String: Any] = ["body": body]
    if let title { alert["title"] = title }
    var fields: [String: Any] = ["fireDate": fireDate, "alert": alert]
    if let id { fields["id"] = id }
    if let timeZone { fields["timeZone"] = timeZone }
    if let rule { fields["repeat"] = rule }
    return fields
}
