import ArgumentParser
import Foundation

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
        let reply = try await options.client.send("POST", "/v1/apps/\(app)/doctor")
        let healthy = reply.object["healthy"] as? Bool ?? false
        if options.json {
            reply.printJSON()
        } else {
            for check in reply.object["checks"] as? [[String: Any]] ?? [] {
                let mark = switch check["outcome"] as? String {
                case "passed": "ok  "
                case "failed": "FAIL"
                default: "skip"
                }
                print("\(mark)  \(cell(check["name"])): \(cell(check["detail"]))")
            }
            print(healthy ? "\(app): push settings look right" : "\(app): push settings need attention")
        }
        if !healthy { throw ExitCode(1) }
    }
}
