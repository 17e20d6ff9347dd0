import Foundation
import HeraldTestSupport
import Testing

/// `herald status` and `herald doctor` through the real binary against a real server.
@Suite("Operator commands")
struct OperatorCommandsTests {
    private func environment(_ herald: SandboxedHerald) -> [String: String] {
        ["HERALD_SERVER": herald.baseURL, "HERALD_API_KEY": WebhookE2E.adminKey]
    }

    @Test("herald doctor passes an app that can push, and names in plain words what is wrong with one that cannot")
    func doctorChecksPushSettingsEndToEnd() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let environment = environment(herald)
                let healthy = try await runHerald(["doctor", "--app", WebhookE2E.app], environment: environment, in: scratch)
                #expect(healthy.succeeded, "\(healthy)")
                for check in ["settings", "credentials", "providerToken", "dns", "apns"] {
                    #expect(healthy.stdout.contains("ok    \(check):"), "\(check): \(healthy)")
                }

                // The same sandbox, but a key id and team the key was not issued for.
                let demo = try await herald.api("GET", "/v1/apps/\(WebhookE2E.app)")
                let environmentURL = try #require(demo.json.object("push")?.string("environment"))
                let certificates = WebhookE2E.certificates
                func push(_ auth: [String: Any], environment: String = environmentURL) -> [String: Any] {
                    ["push": ["environment": environment, "caFile": "\(certificates)/dev-ca.pem", "auth": auth]]
                }
                let wrongKey: [String: Any] = ["type": "token", "teamId": "WRONGTEAM1", "keyId": "NOKEY00001",
                                               "keyFile": "\(certificates)/dev-apns-key.p8"]
                _ = try await herald.api("PUT", "/v1/apps/com.example.wrongkey", json: push(wrongKey))
                let refused = try await runHerald(["doctor", "--app", "com.example.wrongkey"], environment: environment, in: scratch)
                #expect(refused.status == 1, "\(refused)")
                #expect(refused.stdout.contains("FAIL  apns:") && refused.stdout.contains("refused the provider token"), "\(refused)")

                // A port nothing listens on.
                let rightKey: [String: Any] = ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001",
                                               "keyFile": "\(certificates)/dev-apns-key.p8"]
                let closedPort = try unusedLoopbackPort()
                _ = try await herald.api("PUT", "/v1/apps/com.example.closed",
                                         json: push(rightKey, environment: "https://127.0.0.1:\(closedPort)"))
                let unreachable = try await runHerald(["doctor", "--app", "com.example.closed", "--json"],
                                                      environment: environment, in: scratch)
                #expect(unreachable.status == 1, "\(unreachable)")
                let report = try unreachable.jsonObject()
                #expect(report.bool("healthy") == false)
                let apns = report.objects("checks").first { $0.string("name") == "apns" }
                #expect(apns?.string("outcome") == "failed")
                #expect(apns?.string("detail")?.contains("cannot connect") == true, "\(unreachable)")

                // No push settings at all.
                _ = try await herald.api("PUT", "/v1/apps/com.example.bare", json: [:])
                let bare = try await runHerald(["doctor", "--app", "com.example.bare"], environment: environment, in: scratch)
                #expect(bare.status == 1)
                #expect(bare.stdout.contains("FAIL  settings: app 'com.example.bare' has no push settings"), "\(bare)")
                #expect(bare.stdout.contains("skip  apns:"), "\(bare)")

                let missing = try await runHerald(["doctor", "--app", "com.example.nothing"], environment: environment, in: scratch)
                #expect(!missing.succeeded)
                #expect(missing.output.contains("appNotFound"), "\(missing)")
            }
        }
    }

    @Test("herald status prints the server, an app and a device as the status page shows them, or as JSON")
    func statusPrintsWhatThePageShows() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let environment = environment(herald)
                let device = "/v1/apps/\(WebhookE2E.app)/devices/tablet"
                let put = try await herald.api("PUT", device, json: ["timeZone": "Asia/Tokyo", "token": WebhookE2E.token(7)])
                try #require(put.status == 201, "\(put.text)")
                let scheduled = try await herald.api("POST", device + "/notifications", json: [
                    "id": "standup", "fireDate": "2030-03-04T09:30:00", "timeZone": "floating",
                    "repeat": ["unit": "week"], "alert": ["title": "Standup", "body": "In five minutes"],
                ])
                try #require(scheduled.status == 201, "\(scheduled.text)")
                _ = try await herald.push(to: WebhookE2E.token(7))

                let overview = try await runHerald(["status"], environment: environment, in: scratch)
                #expect(overview.succeeded, "\(overview)")
                let appLine = overview.stdout.split(separator: "\n").first { $0.hasPrefix(WebhookE2E.app) }
                #expect(appLine?.contains("1 accepted") == true, "\(overview)")
                #expect(overview.stdout.contains("pending notifications: 1"), "\(overview)")

                let app = try await runHerald(["status", "--app", WebhookE2E.app], environment: environment, in: scratch)
                #expect(app.stdout.contains("tablet") && app.stdout.contains("Asia/Tokyo"), "\(app)")

                let tablet = try await runHerald(["status", "--app", WebhookE2E.app, "--device", "tablet"],
                                                 environment: environment, in: scratch)
                // 09:30 in Tokyo is 00:30 UTC.
                #expect(tablet.stdout.contains("standup") && tablet.stdout.contains("2030-03-04T00:30:00Z"), "\(tablet)")
                let json = try await runHerald(["status", "--app", WebhookE2E.app, "--device", "tablet", "--json"],
                                               environment: environment, in: scratch).jsonObject()
                #expect(json.objects("pending").first?.string("id") == "standup")

                let orphan = try await runHerald(["status", "--device", "tablet"], environment: environment, in: scratch)
                #expect(!orphan.succeeded && orphan.output.contains("--device needs --app"), "\(orphan)")
            }
        }
    }
}
