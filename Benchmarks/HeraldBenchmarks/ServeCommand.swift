import Foundation
import HeraldAPI
import Hummingbird

/// `herald-bench serve`: the same HeraldServer `herald serve` assembles, configured from the
/// HERALD_* environment, for when the `herald` CLI cannot serve yet. Runs until SIGTERM/SIGINT.
enum ServeCommand {
    static func run() async throws {
        let configuration = try ServerConfiguration.load(file: nil, environment: ProcessInfo.processInfo.environment)
        let server = try await HeraldServer(configuration: configuration)
        let application = server.makeApplication { port in
            progress("serving on \(configuration.listenHost):\(port)")
        }
        try await application.runService()
    }
}
