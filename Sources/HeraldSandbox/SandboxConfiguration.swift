import Foundation
import HeraldCore

/// Everything `herald sandbox` needs to start. Paths are used as given, so relative ones resolve
/// against the current directory, which is where `Certs/` lives when run from the repository.
public struct SandboxConfiguration: Sendable {
    /// Where the APNs-compatible HTTP/2 TLS server listens; port 0 picks a free one.
    public var host: String
    public var port: Int
    /// Where the plain HTTP/1.1 admin API listens. It must be a loopback address, because the
    /// admin API has no authentication and can rewrite faults and read every inbox.
    public var adminHost: String
    public var adminPort: Int
    public var certificateFile: String
    public var keyFile: String
    /// Client certificates signed by this CA authenticate a connection (APNs certificate auth);
    /// nil turns certificate auth off, leaving token auth only.
    public var clientCAFile: String?
    /// Public keys that verify provider tokens, by the token's `kid`.
    public var trustedKeys: [String: String]
    /// Faults in effect from the start; the admin API can change them later.
    public var faults: SandboxFaults
    /// The most notifications kept per device token; the oldest go first, so memory stays bounded.
    public var inboxCapacity: Int
    /// APNs refuses provider tokens older than an hour.
    public var maximumTokenAge: TimeInterval
    /// Service-account key files (Google's JSON) whose assertions the FCM token endpoint accepts.
    public var fcmServiceAccounts: [String]
    /// Broadcast channels one app may have, as APNs allows per environment; creating one more
    /// is answered 429. Lower it to test that answer without creating ten thousand.
    public var maximumChannelsPerApp = BroadcastChannel.maximumPerEnvironment

    /// The key id the committed dev key (`Certs/dev-apns-key.p8`) signs with.
    public static let devKeyID = "DEVKEY0001"
    public static let defaultPort = 2197
    public static let defaultAdminPort = 2198

    public init(host: String = "127.0.0.1", port: Int = SandboxConfiguration.defaultPort,
                adminHost: String = "127.0.0.1", adminPort: Int = SandboxConfiguration.defaultAdminPort,
                certificatesDirectory: String = "Certs",
                faults: SandboxFaults = SandboxFaults(),
                inboxCapacity: Int = 1000, maximumTokenAge: TimeInterval = 3600) {
        let directory = certificatesDirectory.hasSuffix("/") ? String(certificatesDirectory.dropLast()) : certificatesDirectory
        self.host = host
        self.port = port
        self.adminHost = adminHost
        self.adminPort = adminPort
        self.certificateFile = "\(directory)/sandbox-server.pem"
        self.keyFile = "\(directory)/sandbox-server.key"
        self.clientCAFile = "\(directory)/dev-ca.pem"
        self.trustedKeys = [Self.devKeyID: "\(directory)/dev-apns-key.pub.pem"]
        self.faults = faults
        self.inboxCapacity = inboxCapacity
        self.maximumTokenAge = maximumTokenAge
        self.fcmServiceAccounts = ["\(directory)/dev-fcm-service-account.json"]
    }
}
