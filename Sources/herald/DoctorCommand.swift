import ArgumentParser
import Foundation
import HeraldClient

/// `herald doctor --app APP`: the app's push settings checked end to end by the server.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check an app's push settings end to end: APNs (credentials, provider token, DNS, HTTP/2 with TLS), FCM (service account, access token, a validate_only send) and Web Push (VAPID keys, subject).",
        discussion: "The server runs the checks with the app's stored settings and sends one probe push to a made-up device token. Exits 1 when a check fails.")

    @OptionGroup var options: ClientOptions
    @Option(help: "The app to check (default: $HERALD_APP).") var app: String?

    func run() async throws {
        guard let app = app ?? ProcessInfo.processInfo.environment["HERALD_APP"] else {
            throw ValidationError("--app is required")
        }
        let report = try await options.perform { client in try await client.doctor(app: app) }
        let healthy = report.healthy
        if options.json {
            try JSONOutput.print(report)
        } else {
            for check in report.checks {
                let mark = switch check.outcome {
                case .passed: "ok  "
                case .failed: "FAIL"
                default: "skip"
                }
                print("\(mark)  \(check.name): \(check.detail)")
            }
            print(healthy ? "\(app): push settings look right" : "\(app): push settings need attention")
        }
        if !healthy { throw ExitCode(1) }
    }
}
