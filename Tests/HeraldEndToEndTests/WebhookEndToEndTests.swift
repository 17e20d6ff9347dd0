import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HeraldCrypto
import HeraldTestSupport
import Testing

// Webhooks through the real binary: a signed inbound hook from `herald hook send` to a sandbox
// device, feedback events out to a receiver in another process, the outbox across kill -9, and the
// rule that a server without keys stays on loopback.

/// Checks a feedback POST as a receiver would: the signature verifies with the feedback secret
/// (and only with it), and the event type is in the header and the body.
private func expectGenuineFeedback(_ request: FeedbackListener.Received, type: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
    let now = Int(Date().timeIntervalSince1970)
    #expect(throws: Never.self, "the Herald-Signature does not verify with feedback.secret", sourceLocation: sourceLocation) {
        try WebhookSignature.verify(header: request.header("Herald-Signature"), body: Array(request.body),
                                    secrets: [WebhookE2E.feedbackSecret], now: now)
    }
    #expect(throws: WebhookSignature.Refusal.invalidSignature, sourceLocation: sourceLocation) {
        try WebhookSignature.verify(header: request.header("Herald-Signature"), body: Array(request.body),
                                    secrets: [WebhookE2E.hookSecret], now: now)
    }
    #expect(request.header("Herald-Event") == type, sourceLocation: sourceLocation)
    #expect(request.json.string("type") == type, sourceLocation: sourceLocation)
    #expect(request.json.string("app") == WebhookE2E.app, sourceLocation: sourceLocation)
    #expect(request.json.int("id") != nil, sourceLocation: sourceLocation)
    #expect(instant(request.json.string("createdAt")) != nil, sourceLocation: sourceLocation)
}

@Suite("Webhooks end to end")
struct WebhookEndToEndTests {
    @Test("A webhook signed by `herald hook send` lands in the sandbox inbox; a wrong secret pushes nothing")
    func signedHookReachesTheSandbox() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let token = WebhookE2E.token(1)
                let definition = scratch.file("orders.json")
                try JSONSerialization.data(withJSONObject: [
                    "app": WebhookE2E.app, "secrets": [WebhookE2E.hookSecret],
                    "template": ["tokens": "/token", "title": "Order {/order}", "body": "Now {/status}"],
                ]).write(to: definition)
                let client = ["--server", herald.baseURL]

                // Defining a hook takes the admin key.
                let anonymous = try await runHerald(["hook", "put", "orders", "--file", definition.path] + client, in: scratch)
                #expect(anonymous.status != 0, "\(anonymous)")
                #expect(anonymous.output.contains("unauthorized"), "\(anonymous)")
                let defined = try await runHerald(["hook", "put", "orders", "--file", definition.path] + client,
                                                  environment: ["HERALD_API_KEY": WebhookE2E.adminKey], in: scratch)
                #expect(defined.succeeded, "\(defined)")

                let body = scratch.file("event.json")
                try Data(#"{"order": "o-77", "status": "shipped", "token": "\#(token)"}"#.utf8).write(to: body)
                let sent = try await runHerald(["hook", "send", "orders", "--secret", WebhookE2E.hookSecret,
                                                "--body", body.path, "--json"] + client, in: scratch)
                #expect(sent.succeeded, "\(sent)")
                let results = try sent.jsonObject().objects("results")
                #expect(results.first?.int("status") == 200, "\(sent)")

                let inbox = try await herald.inbox(token)
                try #require(inbox.count == 1, "the sandbox inbox has \(inbox.count) notifications")
                let alert = inbox[0].object("payload")?.object("aps")?.object("alert")
                #expect(alert?.string("title") == "Order o-77")
                #expect(alert?.string("body") == "Now shipped")

                let forged = try await runHerald(["hook", "send", "orders", "--secret", "whsec-not-the-hook-secret-00",
                                                  "--body", body.path] + client, in: scratch)
                #expect(forged.status != 0, "\(forged)")
                #expect(forged.output.contains("invalidSignature"), "\(forged)")
                #expect(try await herald.inbox(token).count == 1, "a forged webhook pushed")
            }
        }
    }

    @Test("A token the sandbox calls Unregistered raises token.invalid at a receiver, signed with feedback.secret")
    func tokenInvalidReachesTheReceiver() async throws {
        try await withScratch { scratch in
            try await withFeedbackListener(in: scratch) { listener in
                let yaml = SandboxedHerald.configuration(in: scratch, feedbackURL: listener.url + "/herald")
                try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                    let dead = WebhookE2E.token(410)
                    try await herald.unregister([dead])
                    let result = try await herald.push(to: dead)
                    #expect(result.int("status") == 410)
                    #expect(result.string("reason") == "Unregistered")

                    let requests = await eventually { listener.received.isEmpty ? nil : listener.received }
                    let request = try #require(requests?.first, "no feedback reached the receiver")
                    #expect(request.path == "/herald")
                    expectGenuineFeedback(request, type: "token.invalid")
                    #expect(request.json.object("data")?.string("token") == dead)
                    #expect(request.json.object("data")?.string("reason") == "Unregistered")
                    let delivered = try await eventually { try await herald.outbox(state: "delivered").first }
                    #expect(delivered?.string("type") == "token.invalid")
                }
            }
        }
    }

    @Test("Once the outbox is delivered the server goes back to sleep: no polling")
    func idleAfterFeedback() async throws {
        try await withScratch { scratch in
            try await withFeedbackListener(in: scratch) { listener in
                let yaml = SandboxedHerald.configuration(in: scratch, feedbackURL: listener.url + "/herald")
                try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                    let dead = WebhookE2E.token(411)
                    try await herald.unregister([dead])
                    _ = try await herald.push(to: dead)
                    let delivered = try await eventually { try await herald.outbox(state: "delivered").first }
                    try #require(delivered != nil, "the feedback event was not delivered")
                    try await Task.sleep(for: .milliseconds(200))
                    // Nothing is due and nothing arrives: the server's threads should all be asleep.
                    let before = try herald.busyNanoseconds()
                    try await Task.sleep(for: .seconds(1))
                    let busy = try herald.busyNanoseconds() - before
                    #expect(busy < 150_000_000,
                            "an idle server's threads ran for \(busy / 1_000_000) ms of one second")
                }
            }
        }
    }

    @Test("Feedback waiting in the outbox survives kill -9 and is delivered after the restart")
    func outboxSurvivesKillNine() async throws {
        try await withScratch { scratch in
            // The receiver is down for the first run: nothing listens on its port yet.
            let port = try unusedLoopbackPort()
            let yaml = SandboxedHerald.configuration(in: scratch, feedbackURL: "http://127.0.0.1:\(port)/herald")
            let dead = WebhookE2E.token(412)

            let first = try await SandboxedHerald.start(yaml: yaml, in: scratch)
            let waiting: JSONObject
            do {
                try await first.unregister([dead])
                _ = try await first.push(to: dead)
                // Attempted, failed, and waiting for its retry.
                let pending = try await eventually {
                    try await first.outbox(state: "pending").first { ($0.int("attempts") ?? 0) >= 1 }
                }
                waiting = try #require(pending, "the event never reached the outbox")
                #expect(waiting.string("lastError") != nil)
                try await first.crash()
            } catch {
                await first.stop()
                throw error
            }

            try await withFeedbackListener(port: port, in: scratch) { listener in
                try await withSandboxedHerald(yaml: yaml, in: scratch) { second in
                    let requests = await eventually { listener.received.isEmpty ? nil : listener.received }
                    let request = try #require(requests?.first, "the waiting event was not delivered after the restart")
                    expectGenuineFeedback(request, type: "token.invalid")
                    #expect(request.json.int("id") == waiting.int("event"), "a different event arrived")
                    #expect(request.json.object("data")?.string("token") == dead)
                    let delivered = try await eventually {
                        try await second.outbox(state: "delivered").first { $0.int("id") == waiting.int("id") }
                    }
                    #expect(delivered != nil, "the outbox does not show the message delivered")
                    #expect(listener.received.count == 1, "the event was delivered \(listener.received.count) times")
                }
            }
        }
    }

    @Test("`herald serve --listen 0.0.0.0:PORT` without API keys refuses to start, naming listen")
    func noKeysNoPublicListen() async throws {
        try await withScratch { scratch in
            let port = try unusedLoopbackPort()
            let refused = try await runHerald(["serve", "--listen", "0.0.0.0:\(port)", "--data-dir", scratch.dataDirectory],
                                              in: scratch)
            #expect(refused.status != 0, "\(refused)")
            #expect(refused.output.contains("listen"), "the message names listen: \(refused)")
            #expect(!refused.stdout.contains("herald listening on"), "\(refused)")

            // With a key, the same address is allowed, and the key is required.
            let server = try await ServerProcess.start(
                arguments: ["--listen", "0.0.0.0:0", "--data-dir", scratch.dataDirectory],
                environment: ["HERALD_AUTH_ADMIN_KEYS": WebhookE2E.adminKey], in: scratch)
            do {
                let health = try await keyedHTTP("GET", server.baseURL + "/healthz")
                #expect(health.status == 200)
                let anonymous = try await keyedHTTP("PUT", server.baseURL + "/v1/apps/\(WebhookE2E.app)", json: [:])
                #expect(anonymous.status == 401, "\(anonymous.text)")
                let admin = try await keyedHTTP("PUT", server.baseURL + "/v1/apps/\(WebhookE2E.app)", json: [:],
                                                key: WebhookE2E.adminKey)
                #expect(admin.status == 201, "\(admin.text)")
                await server.stop()
            } catch {
                await server.stop()
                throw error
            }
        }
    }
}
