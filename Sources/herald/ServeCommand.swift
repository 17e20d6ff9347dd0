import ArgumentParser
import Foundation
import HeraldAPI
import HeraldComposition
import HeraldCore
import HeraldCrypto
import HeraldSandbox
import HeraldScheduler
import Hummingbird
import Logging
import Metrics
import Prometheus

/// `herald serve`: the HTTP API and the scheduler, on embedded SQLite or, for several nodes, on
/// one PostgreSQL database.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Herald server (HTTP API and scheduler).",
        discussion: "Settings come from --config (YAML), then HERALD_* environment variables, then these flags.")

    @Option(help: "YAML configuration file (default: $HERALD_CONFIG, else none).")
    var config: String?

    @Option(help: "Address to listen on, HOST:PORT (default 127.0.0.1:8580).")
    var listen: String?

    @Option(help: "Directory for the SQLite database (default ./data).")
    var dataDir: String?

    @Option(help: "PostgreSQL database shared by several nodes, postgres://USER[:PASSWORD]@HOST:PORT/DB (default: SQLite).")
    var storageURL: String?

    @Option(help: "This node's name in leases, logs and metrics (default: hostname:pid).")
    var nodeID: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var settings: ServerConfiguration
        do {
            settings = try ServerConfiguration.load(file: config ?? environment["HERALD_CONFIG"], environment: environment)
            if let listen { try settings.set("listen", to: listen) }
            if let dataDir { try settings.set("dataDir", to: dataDir) }
            if let storageURL { try settings.set("storage.url", to: storageURL) }
            if let nodeID { try settings.set("node.id", to: nodeID) }
        } catch {
            throw ValidationError("\(error)")
        }
        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        let format = settings.logFormat
        LoggingSystem.bootstrap { label -> any LogHandler in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "herald")

        // Development mode: an APNs sandbox beside the server, and a demo app pointed at it.
        // Production never listens on a port it was not asked to, so this is off by default.
        var sandbox: SandboxGateway?
        if settings.sandboxEnabled {
            let (host, port) = try ServerConfiguration.parseListenAddress(settings.sandboxListen)
            let (adminHost, adminPort) = try ServerConfiguration.parseListenAddress(settings.sandboxAdmin)
            let gateway = SandboxGateway(configuration: SandboxConfiguration(
                host: host, port: port, adminHost: adminHost, adminPort: adminPort,
                certificatesDirectory: settings.sandboxCertsDirectory), logger: Logger(label: "herald.sandbox"))
            try await gateway.start()
            sandbox = gateway
            FileHandle.standardOutput.write(Data("herald sandbox listening on https://\(host):\(gateway.port) (inboxes at http://\(adminHost):\(gateway.adminPort)/inbox)\n".utf8))
        }

        // A test hook: the fault harness runs nodes whose clocks disagree.
        let skew = environment["HERALD_TEST_CLOCK_SKEW_MS"].flatMap(Double.init).map { $0 / 1000 } ?? 0
        let server = try await HeraldServer(configuration: settings, clock: SystemClock(skew: skew), registry: registry,
                                            logger: logger)
        if let sandbox, let demoApp = settings.sandboxDemoApp {
            try await registerDemoApp(demoApp, sandboxPort: sandbox.port, certs: settings.sandboxCertsDirectory, server: server)
        }
        let host = settings.listenHost
        let watchdog = ShutdownWatchdog(bound: .milliseconds(settings.shutdownDrainMilliseconds) + .seconds(5))
        defer { withExtendedLifetime(watchdog) {} }
        do {
            try await server.run { port in
                // A stable line on stdout, so scripts and tests can learn the bound port.
                FileHandle.standardOutput.write(Data("herald listening on http://\(host):\(port)\n".utf8))
                FileHandle.standardOutput.write(Data("herald status page at http://\(host):\(port)/ui\n".utf8))
            }
        } catch {
            await server.gateway.shutdown()
            await sandbox?.shutdown()
            throw error
        }
        // After the dispatcher drained: close the push connections and wait for their threads,
        // so none is inside OpenSSL when the process exits.
        await server.gateway.shutdown()
        await sandbox?.shutdown()
    }

    /// Points `appID` at the local sandbox with the committed dev keys, keeping its other settings:
    /// APNs with the dev `.p8`, FCM with the dev service account (its token endpoint the sandbox's),
    /// and Web Push with a VAPID key pair of its own and the sandbox as an allowed push service.
    private func registerDemoApp(_ appID: String, sandboxPort: Int, certs: String, server: HeraldServer) async throws {
        var app = try await server.store.app(id: appID) ?? App(id: appID)
        let sandbox = "https://127.0.0.1:\(sandboxPort)"
        app.push = PushSettings(environment: sandbox, caFile: "\(certs)/dev-ca.pem",
                                auth: .token(teamId: "DEVTEAM001", keyId: SandboxConfiguration.devKeyID,
                                             key: .file("\(certs)/dev-apns-key.p8")))
        if let data = FileManager.default.contents(atPath: "\(certs)/dev-fcm-service-account.json") {
            var account = try FCMSettings.ServiceAccount.parse(data)
            account.tokenURI = "\(sandbox)/token"
            app.fcm = FCMSettings(serviceAccount: .content(account), endpoint: sandbox, caFile: "\(certs)/dev-ca.pem")
        }
        if app.webPush?.vapidPrivateKey == nil {
            let key = try ES256Key.generate()
            app.webPush = WebPushSettings(subject: "mailto:dev@herald.invalid", vapidPrivateKey: try key.privateKeyPEM(),
                                          vapidPublicKey: Base64URL.encode(try key.publicKeyPoint))
        }
        app.webPush?.caFile = "\(certs)/dev-ca.pem"
        app.webPush?.allowedHosts = ["127.0.0.1"]
        _ = try await server.store.saveApp(app)
        FileHandle.standardOutput.write(Data("herald demo app \(appID) pushes to the sandbox\n".utf8))
    }
}
