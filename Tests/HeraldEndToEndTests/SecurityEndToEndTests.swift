import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HeraldCrypto
import HeraldTestSupport
import Testing

// Security rules through the real binary, across restarts: stored secrets stay usable (never the
// mask that answers show), a signed hook is not replayable even after a restart, and logs never
// hold a whole device token.

/// A server whose sandbox listens on a fixed port, so push settings stored before a restart still
/// point at it afterwards; logs at info, so what they show can be checked.
private func restartableConfiguration(in scratch: Scratch, sandboxPort: Int, logLevel: String = "error") -> String {
    """
    listen: 127.0.0.1:0
    dataDir: \(scratch.dataDirectory)
    logLevel: \(logLevel)
    auth:
      adminKeys: \(WebhookE2E.adminKey)
    sandbox:
      enabled: true
      listen: 127.0.0.1:\(sandboxPort)
      admin: 127.0.0.1:0
      certsDir: \(WebhookE2E.certificates)

    """
}

@Suite("Security end to end", .serialized)
struct SecurityEndToEndTests {
    @Test("A PKCS#12 password survives a restart: certificate auth (uploaded or from a file) still pushes")
    func pkcs12PasswordSurvivesRestart() async throws {
        try await withScratch { scratch in
            let sandboxPort = try unusedLoopbackPort()
            let yaml = restartableConfiguration(in: scratch, sandboxPort: sandboxPort)
            let bundle = try Data(contentsOf: URL(fileURLWithPath: WebhookE2E.certificates + "/dev-client.p12"))
            let apps: [(id: String, auth: [String: Any])] = [
                ("com.example.uploaded", ["type": "certificate", "pkcs12": bundle.base64EncodedString(), "password": "herald"]),
                ("com.example.file", ["type": "certificate", "certFile": WebhookE2E.certificates + "/dev-client.p12",
                                      "password": "herald"]),
            ]
            let token = WebhookE2E.token(12)
            func push(_ herald: SandboxedHerald, app: String) async throws -> KeyedReply {
                try await herald.api("POST", "/v1/push", json: ["notifications": [
                    ["app": app, "tokens": [token], "aps": ["alert": ["body": "p12"]]],
                ]])
            }
            try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                for app in apps {
                    let put = try await herald.api("PUT", "/v1/apps/\(app.id)", json: ["push": [
                        "environment": "https://127.0.0.1:\(sandboxPort)",
                        "caFile": WebhookE2E.certificates + "/dev-ca.pem", "auth": app.auth,
                    ]])
                    #expect(put.status == 201, "\(app.id): \(put.text)")
                    #expect(put.json.object("push")?.object("auth")?.string("password") == "********", "\(put.text)")
                    let reply = try await push(herald, app: app.id)
                    #expect(reply.json.objects("results").first?.int("status") == 200, "\(app.id): \(reply.text)")
                }
            }
            try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                for app in apps {
                    let reply = try await push(herald, app: app.id)
                    #expect(reply.json.objects("results").first?.int("status") == 200,
                            "\(app.id) after a restart: \(reply.text)")
                }
                #expect(try await herald.inbox(token).count == 2, "the sandbox restarted with the server; both pushes after it")
            }
        }
    }

    @Test("A captured signed hook request, replayed before and after a restart, pushes once", arguments: 1...3)
    func signedHookReplayPushesOnce(round: Int) async throws {
        try await withScratch { scratch in
            let sandboxPort = try unusedLoopbackPort()
            var yaml = restartableConfiguration(in: scratch, sandboxPort: sandboxPort)
            yaml += "  demoApp: \(WebhookE2E.app)\n"
            let token = WebhookE2E.token(100 + round)
            let body = Data(#"{"order": "o-\#(round)", "token": "\#(token)"}"#.utf8)
            let signature = WebhookSignature.sign(secret: WebhookE2E.hookSecret, timestamp: Int(Date().timeIntervalSince1970),
                                                  body: Array(body))
            func deliver(_ herald: SandboxedHerald, idempotencyKey: String? = nil) async throws -> KeyedReply {
                var headers = ["Herald-Signature": signature]
                if let idempotencyKey { headers["Idempotency-Key"] = idempotencyKey }
                return try await keyedHTTP("POST", herald.baseURL + "/v1/hooks/orders", body: body, headers: headers)
            }
            try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                let defined = try await herald.api("PUT", "/v1/hooks/orders", json: [
                    "app": WebhookE2E.app, "secrets": [WebhookE2E.hookSecret],
                    "template": ["tokens": "/token", "title": "Order {/order}", "body": "Ready"],
                ])
                #expect(defined.status == 201, "\(defined.text)")
                let first = try await deliver(herald)
                #expect(first.status == 200, "\(first.text)")
                #expect(first.headers["idempotent-replayed"] == nil)
                let replay = try await deliver(herald, idempotencyKey: "a-new-key")
                #expect(replay.status == 200, "\(replay.text)")
                #expect(replay.headers["idempotent-replayed"] == "true")
            }
            try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                let replay = try await deliver(herald)
                #expect(replay.status == 200, "\(replay.text)")
                #expect(replay.headers["idempotent-replayed"] == "true", "the replay record did not survive a restart")
                #expect(try await herald.inbox(token).isEmpty, "the replay after the restart pushed again")
            }
        }
    }

    @Test("Logs at info show at most the first 8 characters of a device token, for accepted and refused pushes")
    func logsRedactTokens() async throws {
        try await withScratch { scratch in
            let sandboxPort = try unusedLoopbackPort()
            var yaml = restartableConfiguration(in: scratch, sandboxPort: sandboxPort, logLevel: "info")
            yaml += "  demoApp: \(WebhookE2E.app)\n"
            let accepted = WebhookE2E.token(0xabc1)
            let unregistered = WebhookE2E.token(0xdead)
            try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                try await herald.unregister([unregistered])
                #expect(try await herald.push(to: accepted).int("status") == 200)
                #expect(try await herald.push(to: unregistered).int("status") == 410)
                let logged = await eventually { () -> String? in
                    let output = herald.server.child.stdout + herald.server.child.stderr
                    return output.contains("push refused") && output.contains("device token invalidated") ? output : nil
                }
                let output = try #require(logged, "the expected log lines never appeared")
                for token in [accepted, unregistered] {
                    #expect(!output.contains(token), "a whole device token is in the logs")
                    #expect(output.contains(String(token.prefix(8))), "the token's first 8 characters should identify it")
                }
            }
        }
    }
}
