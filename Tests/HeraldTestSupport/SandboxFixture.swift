import Foundation
import HeraldCore
import HeraldSandbox

/// Starts the in-process APNs sandbox (``SandboxGateway``) on free loopback ports with the
/// repository's dev certificates, runs `body`, and shuts the sandbox down whatever happens.
///
/// Every suite that pushes into a sandbox starts it here, so they all start it alike (the same
/// certificates, ports and quiet logger) and none forgets the shutdown on a failure.
///
/// - Parameters:
///   - faults: faults in effect from the start; a test may change them later with `faults`.
///   - maximumTokenAge: how old a provider token the sandbox still accepts (APNs: an hour).
///   - maximumChannelsPerApp: broadcast channels one app may have; nil keeps APNs' limit.
public func withSandbox<T>(faults: SandboxFaults = SandboxFaults(), maximumTokenAge: TimeInterval = 3600,
                           maximumChannelsPerApp: Int? = nil,
                           _ body: (SandboxGateway) async throws -> T) async throws -> T {
    var configuration = SandboxConfiguration(host: "127.0.0.1", port: 0, adminHost: "127.0.0.1", adminPort: 0,
                                             certificatesDirectory: TestCertificates.directory, faults: faults,
                                             maximumTokenAge: maximumTokenAge)
    if let maximumChannelsPerApp { configuration.maximumChannelsPerApp = maximumChannelsPerApp }
    let gateway = SandboxGateway(configuration: configuration, logger: quietLogger("herald.sandbox.test"))
    try await gateway.start()
    do {
        let result = try await body(gateway)
        await gateway.shutdown()
        return result
    } catch {
        await gateway.shutdown()
        throw error
    }
}

/// What the push and delivery suites ask of the test's sandbox, in their words: how an app
/// reaches it, and what it received or refused.
extension SandboxGateway {
    /// How an app reaches this sandbox, trusting the dev CA.
    public func settings(_ auth: PushSettings.Auth = Dev.tokenAuth) -> PushSettings {
        PushSettings(environment: "https://127.0.0.1:\(port)", caFile: TestCertificates.path("dev-ca.pem"), auth: auth)
    }

    /// The dev app (``Dev/bundleID``), pushing into this sandbox.
    public func app(_ auth: PushSettings.Auth = Dev.tokenAuth) -> App {
        App(id: Dev.bundleID, push: settings(auth))
    }

    /// What the device with `token` received, oldest first: ``inbox(token:)``.
    public func inbox(_ token: String) -> [InboxEntry] { inbox(token: token) }

    /// How many pushes to this token the sandbox refused: ``refusals(token:)``.
    public func refusals(_ token: String) -> Int { refusals(token: token) }

    /// Every notification the sandbox accepted, whatever the token.
    public var everything: [InboxEntry] { allInboxes().values.flatMap { $0 } }
}

extension InboxEntry {
    /// The `aps.alert` dictionary, when the alert is one.
    public var alert: [String: JSONValue]? {
        if case .object(let alert)? = aps?["alert"] { return alert }
        return nil
    }
}
