import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Logging
import Synchronization

/// `herald sandbox` as a library: an APNs-compatible HTTP/2 TLS server that checks pushes as
/// APNs does, keeps an inbox per device token, and injects faults on demand, plus its loopback
/// admin API. Tests start one on port 0 and read `port` and `adminPort` back.
public final class SandboxGateway: Sendable {
    public let configuration: SandboxConfiguration
    private let logger: Logger
    private let inboxes: DeviceInboxes
    private let channelInboxes: ChannelInboxes
    private let broadcastChannels: BroadcastChannels
    private let sharedFaults: SharedFaults
    /// The running FCM endpoint, for ``revokeFCMAccessTokens()``.
    private let fcm = Mutex<FCMService?>(nil)
    private let running = Mutex<Running?>(nil)
    private let boundPorts = Mutex<(tls: Int, admin: Int)>((0, 0))

    private struct Running: Sendable {
        let server: HTTP2Server
        let admin: SandboxAdminServer
    }

    public init(configuration: SandboxConfiguration = SandboxConfiguration(), logger: Logger = Logger(label: "herald.sandbox")) {
        self.configuration = configuration
        self.logger = logger
        self.inboxes = DeviceInboxes(capacity: configuration.inboxCapacity)
        self.channelInboxes = ChannelInboxes(capacity: configuration.inboxCapacity)
        self.broadcastChannels = BroadcastChannels(capacity: configuration.inboxCapacity,
                                                   maximumPerApp: configuration.maximumChannelsPerApp)
        self.sharedFaults = SharedFaults(configuration.faults)
    }

    /// The HTTP/2 TLS port (valid after `start()`).
    public var port: Int { boundPorts.withLock { $0.tls } }

    /// The admin API port (valid after `start()`).
    public var adminPort: Int { boundPorts.withLock { $0.admin } }

    /// Reads the keys and certificates, then starts the HTTP/2 TLS server and the admin API.
    /// Throws `SandboxError` for bad configuration, or what the servers threw (e.g. a busy port).
    public func start() async throws {
        guard Self.isLoopback(configuration.adminHost) else { throw SandboxError.adminNotLoopback(host: configuration.adminHost) }
        let alreadyStarted = running.withLock { $0 != nil }
        if alreadyStarted { throw SandboxError.alreadyStarted }
        for path in [configuration.certificateFile, configuration.keyFile] + (configuration.clientCAFile.map { [$0] } ?? [])
        where !FileManager.default.fileExists(atPath: path) {
            throw SandboxError.missingFile(path)
        }
        var keys: [String: ES256Key] = [:]
        for (keyID, path) in configuration.trustedKeys {
            guard FileManager.default.fileExists(atPath: path) else { throw SandboxError.missingFile(path) }
            do {
                keys[keyID] = try ES256Key(contentsOfFile: path)
            } catch {
                throw SandboxError.unreadableKey(keyID: keyID, path: path, detail: "\(error)")
            }
        }

        var accounts: [String: (projectID: String, key: RS256Key)] = [:]
        for path in configuration.fcmServiceAccounts {
            guard let data = FileManager.default.contents(atPath: path) else { throw SandboxError.missingFile(path) }
            do {
                let account = try FCMSettings.ServiceAccount.parse(data)
                accounts[account.clientEmail] = (account.projectID, try RS256Key(pem: account.privateKey))
            } catch {
                throw SandboxError.unreadableKey(keyID: "fcm service account", path: path, detail: "\(error)")
            }
        }
        let fcm = FCMService(accounts: accounts, inboxes: channelInboxes, logger: logger)
        let webPush = WebPushService(inboxes: channelInboxes, logger: logger)
        self.fcm.withLock { $0 = fcm }
        let responder = SandboxResponder(
            validator: PushRequestValidator(keys: keys, maximumTokenAge: configuration.maximumTokenAge),
            inboxes: inboxes, channels: broadcastChannels, faults: sharedFaults, fcm: fcm, webPush: webPush, logger: logger)
        let tls = TLSServerConfiguration(certificateFile: configuration.certificateFile, keyFile: configuration.keyFile,
                                         clientCAFile: configuration.clientCAFile, requireClientCertificate: false)
        // Bodies past the VoIP limit are still read, so that they get APNs' 413, not a reset.
        let settings = HTTP2ServerSettings(maxConcurrentStreams: StreamLimitRaiser.initialLimit, maxRequestBodySize: 1 << 20)
        let server = HTTP2Server(host: configuration.host, port: configuration.port, tls: tls, settings: settings,
                                 handler: responder.handler)
        try await server.start()

        let admin = SandboxAdminServer()
        let adminPort: Int
        do {
            let host = configuration.host
            let routes = SandboxAdminRoutes(inboxes: inboxes, faults: sharedFaults, channelInboxes: channelInboxes,
                                            broadcastChannels: broadcastChannels, fcm: fcm, webPush: webPush, origin: { [weak self] in "https://\(host):\(self?.port ?? 0)" })
            adminPort = try await admin.start(host: configuration.adminHost, port: configuration.adminPort,
                                              router: routes.makeRouter(), logger: logger)
        } catch {
            await server.shutdown()
            throw error
        }

        let raced = running.withLock { current -> Bool in
            if current != nil { return true }
            current = Running(server: server, admin: admin)
            return false
        }
        if raced {
            await admin.shutdown()
            await server.shutdown()
            throw SandboxError.alreadyStarted
        }
        boundPorts.withLock { $0 = (server.port, adminPort) }
        logger.info("sandbox started", metadata: [
            "listen": "\(configuration.host):\(server.port)", "admin": "\(configuration.adminHost):\(adminPort)",
        ])
    }

    /// Forgets every FCM access token issued, so the next send with one is a 401.
    public func revokeFCMAccessTokens() { fcm.withLock { $0?.revokeAccessTokens() } }

    /// What the device with this token received, oldest first.
    public func inbox(token: String) -> [InboxEntry] {
        inboxes.inbox(token: token)
    }

    /// How many requests to this token the sandbox refused, for any reason.
    public func refusals(token: String) -> Int {
        inboxes.refusals(token: token)
    }

    /// Every refused request so far, whatever its token.
    public var totalRefusals: Int { inboxes.totalRefusals }

    /// Every inbox, by lowercased token.
    public func allInboxes() -> [String: [InboxEntry]] {
        inboxes.all()
    }

    /// Empties every device inbox and forgets every broadcast; channels stay registered.
    public func clearInboxes() {
        inboxes.clear()
        broadcastChannels.clearBroadcasts()
    }

    /// The Live Activity pushes this device token received, oldest first.
    public func activity(token: String) -> [ActivityEvent] {
        ActivityEvent.timeline(of: inboxes.inbox(token: token))
    }

    /// The app's broadcast channels, oldest first.
    public func channels(bundleID: String) -> [BroadcastChannelSummary] {
        broadcastChannels.channels(bundleID: bundleID).map(\.summary)
    }

    /// What was broadcast on the channel, oldest first; nil when no app has it.
    public func broadcasts(channelID: String) -> [ActivityEvent]? {
        broadcastChannels.channel(channelID).map { $0.broadcasts.compactMap(\.activityEvent) }
    }

    /// The faults in effect; a new value applies to requests that arrive after it is set.
    public var faults: SandboxFaults {
        get { sharedFaults.current }
        set { sharedFaults.current = newValue }
    }

    /// Stops both servers. With a grace period, in-flight pushes are answered first.
    public func shutdown(gracePeriod: Duration = .zero) async {
        guard let current = running.withLock({ current -> Running? in
            defer { current = nil }
            return current
        }) else { return }
        await current.admin.shutdown()
        await current.server.shutdown(gracePeriod: gracePeriod)
        logger.info("sandbox stopped")
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
