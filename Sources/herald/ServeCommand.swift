import ArgumentParser
import Foundation
import HeraldAPI
import Hummingbird
import Logging
import Metrics
import Prometheus

/// `herald serve`: the HTTP API and the scheduler on embedded SQLite.
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

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var settings: ServerConfiguration
        do {
            settings = try ServerConfiguration.load(file: config ?? environment["HERALD_CONFIG"], environment: environment)
            if let listen { try settings.set("listen", to: listen) }
            if let dataDir { try settings.set("dataDir", to: dataDir) }
        } catch {
            throw ValidationError("\(error)")
        }
        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "herald")

        let server = try await HeraldServer(configuration: settings, registry: registry, logger: logger)
        let host = settings.listenHost
        let application = server.makeApplication { port in
            // A stable line on stdout, so scripts and tests can learn the bound port.
            FileHandle.standardOutput.write(Data("herald listening on http://\(host):\(port)\n".utf8))
        }
        try await application.runService()
    }
}
