import Foundation
import HeraldCore
import HeraldPush
import HeraldSandbox
import HeraldStorage
import Logging
import Synchronization
import HeraldTestSupport
import Testing

/// The identities the committed dev credentials carry.
enum Dev {
    static let bundleID = "com.example.herald"
    static let teamID = "DEVTEAM001"
    static let keyID = "DEVKEY0001"

    static let tokenAuth = PushSettings.Auth.token(teamId: teamID, keyId: keyID,
                                                   key: .file(TestCertificates.path("dev-apns-key.p8")))
    static let certificateAuth = PushSettings.Auth.certificate(.pem(certificate: .file(TestCertificates.path("dev-client.pem")),
                                                                    key: .file(TestCertificates.path("dev-client.key"))))
}

/// A quiet logger, so a 500-push test does not print 500 lines.
func quietLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .error
    return logger
}

/// A device token: 32 bytes of hex, distinct for each `seed`.
func deviceToken(_ seed: Int) -> String { testDeviceToken(seed, family: 0xa5) }

/// A running sandbox gateway on free loopback ports.
struct Sandbox {
    let gateway: SandboxGateway

    var port: Int { gateway.port }

    /// How an app reaches this sandbox.
    func settings(_ auth: PushSettings.Auth = Dev.tokenAuth) -> PushSettings {
        PushSettings(environment: "https://127.0.0.1:\(gateway.port)", caFile: TestCertificates.path("dev-ca.pem"), auth: auth)
    }

    func app(_ auth: PushSettings.Auth = Dev.tokenAuth) -> App {
        App(id: Dev.bundleID, push: settings(auth))
    }

    var faults: SandboxFaults {
        get { gateway.faults }
        nonmutating set { gateway.faults = newValue }
    }

    func inbox(_ token: String) -> [InboxEntry] { gateway.inbox(token: token) }

    /// How many pushes to this token the sandbox refused.
    func refusals(_ token: String) -> Int { gateway.refusals(token: token) }

    /// How many pushes the sandbox refused, whatever the token.
    var totalRefusals: Int { gateway.totalRefusals }

    /// Every notification the sandbox accepted, whatever the token.
    var everything: [InboxEntry] { gateway.allInboxes().values.flatMap { $0 } }
}

/// Starts a sandbox on free ports, runs `body`, and shuts it down whatever happens.
func withSandbox<T>(faults: SandboxFaults = SandboxFaults(), maximumTokenAge: TimeInterval = 3600,
                    _ body: (Sandbox) async throws -> T) async throws -> T {
    let configuration = SandboxConfiguration(host: "127.0.0.1", port: 0, adminHost: "127.0.0.1", adminPort: 0,
                                             certificatesDirectory: TestCertificates.directory, faults: faults,
                                             maximumTokenAge: maximumTokenAge)
    let gateway = SandboxGateway(configuration: configuration, logger: quietLogger("herald.sandbox.test"))
    try await gateway.start()
    do {
        let result = try await body(Sandbox(gateway: gateway))
        await gateway.shutdown()
        return result
    } catch {
        await gateway.shutdown()
        throw error
    }
}

/// A push gateway for the test, shut down after `body`.
func withPushGateway<T>(ledger: any TokenLedger = TransientTokenLedger(), timeout: Duration = .seconds(10),
                        concurrency: Int = 2000, _ body: (PushGateway) async throws -> T) async throws -> T {
    let gateway = PushGateway(ledger: ledger, configuration: .init(timeout: timeout, concurrency: concurrency),
                              logger: quietLogger("herald.push.test"))
    do {
        let result = try await body(gateway)
        await gateway.shutdown()
        return result
    } catch {
        await gateway.shutdown()
        throw error
    }
}

/// An APNs client for the test, closed after `body`.
func withClient<T>(_ settings: PushSettings, retry: RetryPolicy = RetryPolicy(),
                   now: @escaping @Sendable () -> Date = { Date() },
                   _ body: (APNsClient) async throws -> T) async throws -> T {
    let client = try APNsClient(appID: Dev.bundleID, settings: settings, retry: retry, now: now)
    do {
        let result = try await body(client)
        await client.close()
        return result
    } catch {
        await client.close()
        throw error
    }
}

/// A SQLite store in a fresh temporary directory, removed after `body`.
func withStore<T>(_ body: (SQLiteStore) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("herald-push-tests-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try SQLiteStore(directory: directory)
    return try await body(store)
}

/// A plain alert push.
func alert(to token: String, title: String = "Hello", body: String = "World", id: String? = nil) throws -> APNsPush {
    try APNsPush(token: token, type: .alert, bundleID: Dev.bundleID, id: id,
                 aps: APS(alert: .content(.init(title: title, body: body))))
}

/// A retry policy that keeps tests fast: three tries, milliseconds apart.
let quickRetry = RetryPolicy(initialDelay: .milliseconds(2), maximumDelay: .milliseconds(10), maximumAttempts: 3)

/// A clock the test moves by hand, for provider-token ages.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ date: Date = Date()) {
        current = Mutex(date)
    }

    var now: Date {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    var closure: @Sendable () -> Date { { [self] in now } }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Time elapsed while running `body`.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let start = ContinuousClock.now
    let result = try await body()
    return (result, ContinuousClock.now - start)
}

extension InboxEntry {
    /// The `aps.alert` dictionary, when the alert is one.
    var alert: [String: JSONValue]? {
        if case .object(let alert)? = aps?["alert"] { return alert }
        return nil
    }
}
