import Foundation
import HeraldAPI
import HeraldComposition
import HeraldCore
import HeraldSandbox
import HeraldTestSupport
import HeraldScheduler
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

// Fixtures for the access-control, signed-hook and feedback tests: an in-process Herald with API
// keys configured, beside a real sandbox APNs gateway it pushes into, so that every refusal can be
// checked twice: nothing stored changed, and nothing reached a device.

/// The keys the guarded server knows.
enum GuardKeys {
    static let admin = "admin-key-5f0c1d2e3a4b"
    /// A second admin key: its own rate-limit bucket.
    static let otherAdmin = "admin-key-two-77aa88bb99cc"
    /// Scoped to ``GuardApps/alarm``.
    static let alarm = "alarm-key-0a1b2c3d4e5f"
    /// Scoped to ``GuardApps/weather``.
    static let weather = "weather-key-9f8e7d6c5b4a"
}

/// The two apps the guarded tests use; both push into the test's sandbox.
enum GuardApps {
    static let alarm = "com.example.alarm"
    static let weather = "com.example.weather"
    static let device = "iphone-1"
}

/// Device tokens: 32 bytes of hex, one per seed.
func guardToken(_ seed: Int) -> String { testDeviceToken(seed, family: 0xc3) }

typealias GuardCerts = TestCertificates

/// A running guarded server, its clock, the sandbox it pushes into, and a client that can present
/// any key and any header.
struct GuardedHerald: Sendable {
    let server: HeraldServer
    let clock: ManualClock
    let client: any TestClientProtocol
    let sandbox: SandboxGateway
    let dataDirectory: String

    /// The server's `now`, in unix seconds, as hook signatures are checked against it.
    var now: Int { Int(clock.now().timeIntervalSince1970) }

    /// Sends a request, presenting `key` (none when nil) and any extra headers.
    func send(_ method: HTTPRequest.Method, _ path: String, body: Data? = nil, key: String? = GuardKeys.admin,
              authorization: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        var fields: HTTPFields = [:]
        if body != nil { fields[.contentType] = "application/json" }
        if let authorization {
            fields[.authorization] = authorization
        } else if let key {
            fields[.authorization] = "Bearer \(key)"
        }
        for (name, value) in headers {
            fields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
        }
        let response = try await client.executeRequest(uri: path, method: method, headers: fields,
                                                       body: body.map { ByteBuffer(bytes: $0) })
        return Reply(status: response.status, headers: response.headers, body: Data(response.body.readableBytesView))
    }

    func get(_ path: String, key: String? = GuardKeys.admin) async throws -> Reply {
        try await send(.get, path, key: key)
    }

    func put(_ path: String, json: [String: Any], key: String? = GuardKeys.admin) async throws -> Reply {
        try await send(.put, path, body: API.encode(json), key: key)
    }

    func post(_ path: String, json: [String: Any], key: String? = GuardKeys.admin) async throws -> Reply {
        try await send(.post, path, body: API.encode(json), key: key)
    }

    func delete(_ path: String, key: String? = GuardKeys.admin) async throws -> Reply {
        try await send(.delete, path, key: key)
    }

    /// How an app reaches the test's sandbox, as `PUT /v1/apps/{app}` takes it.
    var pushSettings: [String: Any] {
        ["environment": "https://127.0.0.1:\(sandbox.port)", "caFile": GuardCerts.directory + "/dev-ca.pem",
         "auth": ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001",
                  "keyFile": GuardCerts.directory + "/dev-apns-key.p8"]]
    }

    /// Registers `app` (pushing into the sandbox) and one device of it with `token`, as admin.
    func registerApp(_ app: String, device: String = GuardApps.device, token: String,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let appReply = try await put("/v1/apps/\(app)", json: ["push": pushSettings])
        try #require(appReply.status == .created || appReply.status == .ok, "app registration failed: \(appReply.text)",
                     sourceLocation: sourceLocation)
        let deviceReply = try await put("/v1/apps/\(app)/devices/\(device)", json: ["timeZone": "Europe/Paris", "token": token])
        try #require(deviceReply.status == .created || deviceReply.status == .ok,
                     "device registration failed: \(deviceReply.text)", sourceLocation: sourceLocation)
    }

    /// Every notification the sandbox accepted so far, whatever the token.
    var pushedCount: Int { sandbox.allInboxes().values.reduce(0) { $0 + $1.count } }

    /// What a device with `token` received, oldest first.
    func inbox(_ token: String) -> [InboxEntry] { sandbox.inbox(token: token) }

    /// What the API shows about both apps, their devices, the hooks named, and the feedback outbox,
    /// read with the admin key. Used to prove that a refused request changed nothing.
    func snapshot(hooks: [String] = []) async throws -> [StoredView] {
        var paths: [String] = []
        for app in [GuardApps.alarm, GuardApps.weather] {
            let device = "/v1/apps/\(app)/devices/\(GuardApps.device)"
            paths += ["/v1/apps/\(app)", device, "\(device)/notifications", "\(device)/deliveries?limit=1000"]
        }
        paths += hooks.map { "/v1/hooks/\($0)" }
        paths.append("/v1/feedback/outbox")
        var views: [StoredView] = []
        for path in paths {
            let reply = try await get(path, key: GuardKeys.admin)
            views.append(StoredView(path: path, status: reply.status.code, body: reply.json))
        }
        return views
    }

    /// Runs `request`, which must be refused with `status` and `reason`; checks the JSON error
    /// shape, that nothing reached the sandbox, and that nothing stored changed.
    @discardableResult
    func expectRefused(_ status: HTTPResponse.Status, _ reason: String, hooks: [String] = [],
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ request: () async throws -> Reply) async throws -> Reply {
        let before = try await snapshot(hooks: hooks)
        let pushedBefore = pushedCount
        let reply = try await request()
        expectError(reply, status: status, reason: reason, sourceLocation: sourceLocation)
        #expect(pushedCount == pushedBefore, "a refused request pushed something", sourceLocation: sourceLocation)
        let after = try await snapshot(hooks: hooks)
        #expect(after == before, "a refused request changed what is stored", sourceLocation: sourceLocation)
        return reply
    }
}

/// Settings a guarded test may change.
struct GuardOptions: Sendable {
    /// Configure the admin and app keys of ``GuardKeys``.
    var keys = true
    var ratePerSecond: Double?
    var rateBurst: Int?
    var requestTimeoutMilliseconds: Int?
    var maxBodyBytes: Int?
    var hookToleranceSeconds: Int?
    var feedbackURLs: [String] = []
    var feedbackSecret: String?
    var feedbackEvents: Set<FeedbackType>?
    var feedbackMaxAttempts: Int?
    var feedbackOutboxLimit: Int?
    var faults = SandboxFaults()
    var transport: Transport = .router
    var pushCredentialsDirectory: String?
    var pushAllowedEnvironments: [String]?
    /// Adds this test's sandbox, as `127.0.0.1:PORT`, to `push.allowedEnvironments`.
    var allowedEnvironmentsIncludeSandbox = false
    var hookRatePerSecond: Double?
    var hookRateBurst: Int?
    /// `auth.metricsKeys` and `metrics.public`.
    var metricsKeys: [String] = []
    var metricsArePublic = false
    var hookMaxTokensPerRequest: Int?
}

/// Starts a sandbox gateway on free loopback ports and a Herald (keys configured unless told
/// otherwise) on a fresh data directory with a ManualClock at `now`; runs `body`; always stops
/// both and removes the directory.
func withGuardedHerald<Value: Sendable>(
    now: Date = Moment.now, options: GuardOptions = .init(),
    _ body: @escaping @Sendable (GuardedHerald) async throws -> Value
) async throws -> Value {
    let directory = TemporaryDirectory.make()
    defer { TemporaryDirectory.remove(directory) }
    var logger = Logger(label: "herald.guarded-tests")
    logger.logLevel = .critical
    return try await withSandbox(faults: options.faults) { (sandbox: SandboxGateway) async throws -> Value in
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        configuration.listenPort = 0
        if options.keys {
            configuration.adminKeys = [GuardKeys.admin, GuardKeys.otherAdmin]
            configuration.appKeys = [.init(app: GuardApps.alarm, key: GuardKeys.alarm),
                                     .init(app: GuardApps.weather, key: GuardKeys.weather)]
        }
        // Generous unless a test is about the limit: the refusal checks read a lot with one key.
        configuration.ratePerSecond = options.ratePerSecond ?? 100_000
        configuration.rateBurst = options.rateBurst ?? 100_000
        if let value = options.requestTimeoutMilliseconds { configuration.requestTimeoutMilliseconds = value }
        if let value = options.maxBodyBytes { configuration.maxBodyBytes = value }
        if let value = options.hookToleranceSeconds { configuration.hookToleranceSeconds = value }
        configuration.feedbackURLs = options.feedbackURLs
        configuration.metricsKeys = options.metricsKeys
        configuration.metricsArePublic = options.metricsArePublic
        configuration.feedbackSecret = options.feedbackSecret
        if let value = options.feedbackEvents { configuration.feedbackEvents = value }
        if let value = options.feedbackMaxAttempts { configuration.feedbackMaxAttempts = value }
        if let value = options.feedbackOutboxLimit { configuration.feedbackOutboxLimit = value }
        configuration.pushCredentialsDirectory = options.pushCredentialsDirectory
        configuration.pushAllowedEnvironments = options.pushAllowedEnvironments
        if options.allowedEnvironmentsIncludeSandbox {
            configuration.pushAllowedEnvironments = (options.pushAllowedEnvironments ?? []) + ["127.0.0.1:\(sandbox.port)"]
        }
        configuration.hookRatePerSecond = options.hookRatePerSecond ?? 100_000
        configuration.hookRateBurst = options.hookRateBurst ?? 100_000
        if let value = options.hookMaxTokensPerRequest { configuration.hookMaxTokensPerRequest = value }

        let clock = ManualClock(now: now)
        let server = try await HeraldServer(configuration: configuration, clock: clock, logger: logger)
        let run: @Sendable (any TestClientProtocol) async throws -> Value = { client in
            try await body(GuardedHerald(server: server, clock: clock, client: client, sandbox: sandbox,
                                         dataDirectory: directory))
        }
        let value: Value
        do {
            switch options.transport {
            case .router:
                value = try await Application(router: server.makeRouter(), logger: logger).test(.router, run)
            case .live:
                value = try await server.makeApplication().test(.live, run)
            }
        } catch {
            await server.gateway.shutdown()
            throw error
        }
        await server.gateway.shutdown()
        return value
    }
}
