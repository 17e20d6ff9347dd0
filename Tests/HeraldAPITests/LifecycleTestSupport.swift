import Foundation
import HeraldTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HeraldAPI
import HeraldComposition
import HeraldCore
import HeraldScheduler
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

// Helpers for the lifecycle and coalescer tests: reporting events, changing state, waking, and a
// real Server-Sent Events client for the live event stream.

// MARK: - Servers with lifecycle settings

/// Lifecycle settings a test may change; the rest is as `withHerald` sets it up.
struct LifecycleOptions: Sendable {
    /// Short, so a closed stream is noticed quickly.
    var heartbeatMilliseconds = 100
    var wakePushesPerHour = 3
}

/// A running server and, with the live transport, the port it listens on.
struct LifecycleHerald: Sendable {
    let herald: Herald
    let port: Int?

    var api: API { herald.api }
    var clock: ManualClock { herald.clock }
    var server: HeraldServer { herald.server }

    /// The URL of a device's live event stream on the real socket.
    func streamURL(app: String = Fixture.app, device: String = Fixture.device, foreground: Bool = false) throws -> URL {
        let port = try #require(port, "the event stream needs the live transport")
        let query = foreground ? "?foreground=true" : ""
        return URL(string: "http://127.0.0.1:\(port)/v1/apps/\(app)/devices/\(device)/events/stream\(query)")!
    }

    /// Connects to a device's event stream and waits for its `: connected` line.
    func connect(app: String = Fixture.app, device: String = Fixture.device, foreground: Bool = false,
                 lastEventID: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> EventStreamClient {
        let client = EventStreamClient(url: try streamURL(app: app, device: device, foreground: foreground),
                                       lastEventID: lastEventID)
        let connected = await client.waitUntil { $0.contains { $0.comment == "connected" } }
        if !connected { client.close() }
        try #require(connected, "no ': connected' line on the event stream (status \(client.status.map(String.init) ?? "none"))",
                     sourceLocation: sourceLocation)
        return client
    }
}

/// Like `withHerald`, with lifecycle settings, and the port when `transport` is live.
func withLifecycleHerald<Value: Sendable>(
    now: Date = Moment.now, dataDirectory: String? = nil, options: LifecycleOptions = .init(),
    transport: Transport = .router,
    _ body: @escaping @Sendable (LifecycleHerald) async throws -> Value
) async throws -> Value {
    let directory = dataDirectory ?? TemporaryDirectory.make()
    defer { if dataDirectory == nil { TemporaryDirectory.remove(directory) } }
    var configuration = ServerConfiguration()
    configuration.dataDirectory = directory
    configuration.listenPort = 0
    configuration.heartbeatMilliseconds = options.heartbeatMilliseconds
    configuration.wakePushesPerHour = options.wakePushesPerHour
    let clock = ManualClock(now: now)
    var logger = Logger(label: "herald.lifecycle-tests")
    logger.logLevel = .warning
    let server = try await HeraldServer(configuration: configuration, clock: clock, logger: logger)
    let run: @Sendable (any TestClientProtocol) async throws -> Value = { client in
        try await body(LifecycleHerald(
            herald: Herald(server: server, clock: clock, api: API(client: client), dataDirectory: directory),
            port: client.port))
    }
    switch transport {
    case .router:
        return try await Application(router: server.makeRouter(), logger: logger).test(.router, run)
    case .live:
        return try await server.makeApplication().test(.live, run)
    }
}

// MARK: - Events, state and wake through HTTP

/// One reported event as the API takes it. `value: nil` leaves the value out; pass `NSNull()`
/// for an explicit JSON null.
func event(_ kind: String, key: String? = nil, _ value: Any? = nil) -> [String: Any] {
    var fields: [String: Any] = ["kind": kind]
    if let key { fields["key"] = key }
    if let value { fields["value"] = value }
    return fields
}

/// One coalesced notification as a wake, the backlog preview or a `system` frame shows it.
struct Net: Hashable, Sendable, CustomStringConvertible {
    var kind: String
    var key: String?
    var value: JSONValue
    var count: Int

    init(_ kind: String, key: String? = nil, _ value: JSONValue = .null, count: Int = 1) {
        self.kind = kind
        self.key = key
        self.value = value
        self.count = count
    }

    init?(_ json: JSONValue) {
        guard let kind = json["kind"].string, let count = json["count"].int else { return nil }
        self.init(kind, key: json["key"].string, json["value"], count: count)
    }

    var description: String {
        let value = (try? String(decoding: JSONEncoder().encode(self.value), as: UTF8.self)) ?? "?"
        return "\(kind)\(key.map { "[\($0)]" } ?? "")=\(value)×\(count)"
    }
}

extension JSONValue {
    /// The coalesced notifications in a wake answer or backlog preview.
    var coalesced: [Net] { (self["notifications"].array ?? []).compactMap(Net.init) }
    var inbox: [JSONValue] { self["inbox"].array ?? [] }
}

func devicePath(_ app: String = Fixture.app, _ device: String = Fixture.device) -> String {
    "/v1/apps/\(app)/devices/\(device)"
}

extension Herald {
    /// Registers an app with custom kinds and/or push settings.
    func registerApp(_ app: String = Fixture.app, customKinds: [[String: Any]]? = nil, push: [String: Any]? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var body: [String: Any] = [:]
        if let customKinds { body["customKinds"] = customKinds }
        if let push { body["push"] = push }
        let reply = try await api.put("/v1/apps/\(app)", json: body)
        try #require(reply.status == .created || reply.status == .ok, "app registration failed: \(reply.text)",
                     sourceLocation: sourceLocation)
    }

    /// Registers a device of an already registered app.
    func registerDevice(_ fields: [String: Any], app: String = Fixture.app, device: String = Fixture.device,
                        sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var body = fields
        if body["timeZone"] == nil { body["timeZone"] = "Europe/Paris" }
        let reply = try await api.put(devicePath(app, device), json: body)
        try #require(reply.status == .created || reply.status == .ok, "device registration failed: \(reply.text)",
                     sourceLocation: sourceLocation)
    }

    /// Reports events that must be accepted; returns `{accepted, live, queued, backlog}`.
    @discardableResult
    func report(_ events: [[String: Any]], app: String = Fixture.app, device: String = Fixture.device,
                sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let reply = try await api.post("\(devicePath(app, device))/events", json: ["events": events])
        try #require(reply.status == .ok, "events refused: \(reply.text)", sourceLocation: sourceLocation)
        return reply.json
    }

    /// `PUT .../state`, whatever the answer.
    func putState(_ state: String, app: String = Fixture.app, device: String = Fixture.device) async throws -> Reply {
        try await api.put("\(devicePath(app, device))/state", json: ["state": state])
    }

    /// A state change that must succeed; returns `{state, woke, notifications, backlogSeq, inbox}`.
    /// Like a client that processed it, it acknowledges a backlog it was handed, unless told not to.
    @discardableResult
    func moveTo(_ state: String, app: String = Fixture.app, device: String = Fixture.device, acknowledging: Bool = true,
                sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let reply = try await putState(state, app: app, device: device)
        try #require(reply.status == .ok, "PUT state \(state) refused: \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.json["state"].string == state, sourceLocation: sourceLocation)
        if acknowledging { try await acknowledgeBacklog(of: reply.json, app: app, device: device, sourceLocation: sourceLocation) }
        return reply.json
    }

    /// Acknowledges the backlog a wake answer handed over (and with it the inbox items it
    /// carried: they share one series of ids), if there was one.
    func acknowledgeBacklog(of answer: JSONValue, app: String = Fixture.app, device: String = Fixture.device,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        guard let seq = answer["backlogSeq"].int else { return }
        try await acknowledge(upTo: seq, app: app, device: device, sourceLocation: sourceLocation)
    }

    /// An awake device goes back to sleep the way iOS does it: background, then suspended.
    func suspend(app: String = Fixture.app, device: String = Fixture.device,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws {
        if try await deviceState(app: app, device: device) != "background" {
            try await moveTo("background", app: app, device: device, sourceLocation: sourceLocation)
        }
        try await moveTo("suspended", app: app, device: device, sourceLocation: sourceLocation)
    }

    /// `POST .../wake`, whatever the answer; no body when `state` is nil.
    func postWake(_ state: String? = nil, app: String = Fixture.app, device: String = Fixture.device) async throws -> Reply {
        let path = "\(devicePath(app, device))/wake"
        guard let state else { return try await api.send(.post, path) }
        return try await api.post(path, json: ["state": state])
    }

    /// A wake that must succeed; returns `{state, woke, notifications, backlogSeq, inbox}`. Like a
    /// client that processed it, it acknowledges a backlog it was handed, unless told not to.
    @discardableResult
    func wake(_ state: String? = nil, app: String = Fixture.app, device: String = Fixture.device, acknowledging: Bool = true,
              sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let reply = try await postWake(state, app: app, device: device)
        try #require(reply.status == .ok, "wake refused: \(reply.text)", sourceLocation: sourceLocation)
        if acknowledging { try await acknowledgeBacklog(of: reply.json, app: app, device: device, sourceLocation: sourceLocation) }
        return reply.json
    }

    /// `POST .../inbox/ack {"upTo": seq}`: what was handed over up to `seq` was received.
    @discardableResult
    func acknowledge(upTo seq: Int, app: String = Fixture.app, device: String = Fixture.device,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let reply = try await api.post("\(devicePath(app, device))/inbox/ack", json: ["upTo": seq])
        try #require(reply.status == .ok, "inbox ack refused: \(reply.text)", sourceLocation: sourceLocation)
        return reply.json["acknowledged"].int ?? -1
    }

    /// The backlog a wake would deliver now.
    func backlog(app: String = Fixture.app, device: String = Fixture.device,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Net] {
        let reply = try await api.get("\(devicePath(app, device))/events/backlog")
        try #require(reply.status == .ok, "backlog: \(reply.text)", sourceLocation: sourceLocation)
        return reply.json.coalesced
    }

    /// The device as the API shows it.
    func deviceView(app: String = Fixture.app, device: String = Fixture.device) async throws -> JSONValue {
        try await api.get(devicePath(app, device)).json
    }

    func deviceState(app: String = Fixture.app, device: String = Fixture.device) async throws -> String? {
        try await deviceView(app: app, device: device)["state"].string
    }

    /// Polls the device's state until it is `state` (at most `timeout`); returns the last one seen.
    func waitForState(_ state: String, timeout: Duration = .seconds(3), app: String = Fixture.app,
                      device: String = Fixture.device) async throws -> String? {
        var seen: String?
        _ = try await pollUntil(timeout: timeout, interval: .milliseconds(20)) {
            seen = try await deviceState(app: app, device: device)
            return seen == state
        }
        return seen
    }
}

// MARK: - The shared SSE client, read as JSONValue

extension EventStreamClient.Frame {
    /// The data line as JSON.
    var json: JSONValue { (try? JSONDecoder().decode(JSONValue.self, from: Data((data ?? "").utf8))) ?? .null }
}
