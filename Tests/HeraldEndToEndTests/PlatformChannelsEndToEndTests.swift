import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HeraldTestSupport
import Testing

// Android (FCM HTTP v1) and web (Web Push) installations through the real binary, against the
// sandbox's FCM, OAuth token and Web Push endpoints: the demo app's settings point at them.

extension SandboxedHerald {
    /// A new subscription from the sandbox's push service, as a browser's `toJSON()`; its id
    /// starts with `prefix` to choose a fault.
    func subscribe(prefix: String = "") async throws -> (json: [String: Any], id: String) {
        let reply = try await keyedHTTP("POST", sandboxAdmin + "/webpush/subscriptions", json: ["prefix": prefix])
        try #require(reply.status == 201, "POST /webpush/subscriptions: \(reply.text)")
        let json = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
        let endpoint = try #require(json["endpoint"] as? String)
        return (json, String(endpoint.split(separator: "/").last ?? ""))
    }

    /// What the sandbox's FCM took for `token`, and how often it refused it.
    func fcmInbox(_ token: String) async throws -> (messages: [JSONObject], refusals: Int) {
        let reply = try await keyedHTTP("GET", sandboxAdmin + "/fcm/inbox/\(token)")
        try #require(reply.status == 200, "GET fcm inbox: \(reply.text)")
        return (reply.json.objects("messages"), reply.json.int("refusals") ?? 0)
    }

    /// What the sandbox's push service took for subscription `id`, decrypted.
    func webPushInbox(_ id: String) async throws -> (messages: [JSONObject], refusals: Int) {
        let reply = try await keyedHTTP("GET", sandboxAdmin + "/webpush/inbox/\(id)")
        try #require(reply.status == 200, "GET web push inbox: \(reply.text)")
        return (reply.json.objects("messages"), reply.json.int("refusals") ?? 0)
    }

    func registerAndroid(_ device: String, fcmToken: String, app: String = WebhookE2E.app) async throws {
        let reply = try await api("PUT", "/v1/apps/\(app)/devices/\(device)",
                                  json: ["timeZone": "Europe/Paris", "platform": "android", "fcmToken": fcmToken])
        try #require(reply.status == 201 || reply.status == 200, "\(reply.text)")
    }

    func registerWeb(_ device: String, subscription: [String: Any], app: String = WebhookE2E.app) async throws {
        let reply = try await api("PUT", "/v1/apps/\(app)/devices/\(device)",
                                  json: ["timeZone": "Europe/Paris", "platform": "web", "webPush": subscription])
        try #require(reply.status == 201 || reply.status == 200, "\(reply.text)")
    }

    /// `POST /v1/push` of an alert to devices; the result rows.
    func pushAlert(toDevices devices: [String], app: String = WebhookE2E.app) async throws -> [JSONObject] {
        let reply = try await api("POST", "/v1/push", json: ["notifications": [
            ["app": app, "devices": devices, "collapseId": "hello", "aps": ["alert": ["title": "Hi", "body": "there"]],
             "data": ["order": 42]],
        ]])
        try #require(reply.status == 200, "POST /v1/push: \(reply.text)")
        return reply.json.objects("results")
    }

    /// The dev service account (Google's JSON) with its `token_uri` at this sandbox, and the
    /// sandbox's origin: for apps of a test's own whose FCM settings differ from the demo app's.
    func sandboxServiceAccount() async throws -> (account: [String: Any], sandbox: String) {
        var account = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: TestCertificates.path("dev-fcm-service-account.json")))) as? [String: Any])
        let demo = try await api("GET", "/v1/apps/\(WebhookE2E.app)")
        let sandbox = try #require(demo.json.object("fcm")?.string("endpoint"))
        account["token_uri"] = sandbox + "/token"
        return (account, sandbox)
    }

    func deliveries(_ device: String, app: String = WebhookE2E.app) async throws -> [JSONObject] {
        try await api("GET", "/v1/apps/\(app)/devices/\(device)/deliveries?limit=100").json.objects("deliveries")
    }
}

@Suite("Android and web installations end to end", .serialized)
struct PlatformChannelsEndToEndTests {
    @Test("an android and a web installation each get a scheduled repeating notification on time, twice")
    func scheduledRepeatingNotificationReachesAndroidAndWeb() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerAndroid("pixel", fcmToken: "fcm-pixel-0001")
                let subscription = try await herald.subscribe()
                try await herald.registerWeb("laptop", subscription: subscription.json)
                // Anchored 57 s ago, every minute: occurrences 3 s and 63 s from now.
                let first = wholeSecond(after: 3)
                for device in ["pixel", "laptop"] {
                    let reply = try await herald.api("POST", "/v1/apps/\(WebhookE2E.app)/devices/\(device)/notifications", json: [
                        "id": "standup", "fireDate": utc(first.addingTimeInterval(-60)), "repeat": ["every": 1, "unit": "minute"],
                        "alert": ["title": "Stand-up", "body": "in 5 minutes"], "userInfo": ["room": 4],
                    ])
                    try #require(reply.status == 201, "\(reply.text)")
                }
                let both = await eventually(timeout: .seconds(80), interval: .milliseconds(250)) { () -> ([JSONObject], [JSONObject])? in
                    guard let fcm = try? await herald.fcmInbox("fcm-pixel-0001").messages,
                          let web = try? await herald.webPushInbox(subscription.id).messages, fcm.count >= 2, web.count >= 2
                    else { return nil }
                    return (fcm, web)
                }
                let (fcm, web) = try #require(both, "two occurrences reached each installation")
                // Anchored a minute before the first, the two are occurrences 1 and 2 of the series.
                for (index, expected) in [first, first.addingTimeInterval(60)].enumerated() {
                    let occurrence = "standup#\(index + 1)"
                    let fcmAt = try #require(fcm[index].double("receivedAt"))
                    let webAt = try #require(web[index].double("receivedAt"))
                    // On time: within a second of the instant (receivedAt is seconds since 2001).
                    for received in [fcmAt, webAt] {
                        let lateness = Date(timeIntervalSinceReferenceDate: received).timeIntervalSince(expected)
                        #expect(lateness >= 0 && lateness < 1.0, "occurrence \(index) arrived \(lateness) s after its instant")
                    }
                    // FCM: notification + string data, the occurrence id as collapse key and tag.
                    let message = try #require(fcm[index].object("message"))
                    #expect(message.object("notification")?.string("title") == "Stand-up")
                    #expect(message.object("data")?.string("room") == "4", "FCM data values are strings")
                    #expect(message.object("android")?.string("collapse_key") == occurrence)
                    // Web Push: the sandbox decrypted it with the subscription's keys.
                    let payload = try #require(web[index].object("message"))
                    #expect(payload.string("title") == "Stand-up")
                    #expect(payload.string("body") == "in 5 minutes")
                    #expect(payload.string("id") == occurrence)
                    #expect(web[index].object("headers")?.string("content-encoding") == "aes128gcm")
                }
                for device in ["pixel", "laptop"] {
                    let outcomes = try await herald.deliveries(device).map { $0.string("outcome") }
                    #expect(outcomes.filter { $0 == "sent" }.count >= 2, "\(device): \(outcomes)")
                }
            }
        }
    }

    @Test("FCM 404 UNREGISTERED invalidates the token: token.invalid feedback, and the next push is not sent (410)")
    func fcmUnregisteredInvalidatesToken() async throws {
        try await withScratch { scratch in
            try await withFeedbackListener(in: scratch) { listener in
                let yaml = SandboxedHerald.configuration(in: scratch, feedbackURL: listener.url)
                try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                    try await herald.registerAndroid("old-phone", fcmToken: "unregistered-0001")
                    let first = try #require(try await herald.pushAlert(toDevices: ["old-phone"]).first)
                    #expect(first.int("status") == 404)
                    #expect(first.string("reason") == "UNREGISTERED")
                    let second = try #require(try await herald.pushAlert(toDevices: ["old-phone"]).first)
                    #expect(second.int("status") == 410)
                    #expect(second.string("reason") == "tokenInvalidated")
                    #expect(try await herald.fcmInbox("unregistered-0001").refusals == 1, "the second push never left")
                    let announced = await pollUntil(timeout: .seconds(10), interval: .milliseconds(100)) {
                        listener.received.contains { $0.json.string("type") == "token.invalid" }
                    }
                    #expect(announced, "a token.invalid feedback event went out")
                    // Registering the token again makes it valid again.
                    try await herald.registerAndroid("old-phone", fcmToken: "unregistered-0001")
                    #expect(try await herald.pushAlert(toDevices: ["old-phone"]).first?.int("status") == 404)
                }
            }
        }
    }

    @Test("FCM 400 INVALID_ARGUMENT on the token invalidates it; SENDER_ID_MISMATCH is a settings error and does not")
    func fcmInvalidArgumentAndSenderMismatch() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerAndroid("bad", fcmToken: "invalid-0001")
                try await herald.registerAndroid("foreign", fcmToken: "mismatch-0001")
                let results = try await herald.pushAlert(toDevices: ["bad", "foreign"])
                let bad = try #require(results.first { $0.string("device") == "bad" })
                let foreign = try #require(results.first { $0.string("device") == "foreign" })
                #expect(bad.int("status") == 400 && bad.string("reason") == "INVALID_ARGUMENT")
                #expect(foreign.int("status") == 403 && foreign.string("reason") == "SENDER_ID_MISMATCH")
                let again = try await herald.pushAlert(toDevices: ["bad", "foreign"])
                #expect(again.first { $0.string("device") == "bad" }?.string("reason") == "tokenInvalidated")
                #expect(again.first { $0.string("device") == "foreign" }?.string("reason") == "SENDER_ID_MISMATCH",
                        "a sender mismatch says nothing about the token")
            }
        }
    }

    @Test("FCM 429 QUOTA_EXCEEDED holds the project for Retry-After, then the message is sent")
    func fcmQuotaWaitsRetryAfter() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerAndroid("busy", fcmToken: "quota-0001")
                let started = ContinuousClock.now
                let result = try #require(try await herald.pushAlert(toDevices: ["busy"]).first)
                let elapsed = ContinuousClock.now - started
                #expect(result.int("status") == 200, "\(result.raw)")
                #expect(elapsed >= .seconds(1), "waited out Retry-After: 1 (took \(elapsed))")
                let inbox = try await herald.fcmInbox("quota-0001")
                #expect(inbox.refusals == 1 && inbox.messages.count == 1)
            }
        }
    }

    @Test("FCM 503 is tried again with backoff and then sent")
    func fcmUnavailableIsRetried() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerAndroid("flaky", fcmToken: "unavailable-0001")
                let result = try #require(try await herald.pushAlert(toDevices: ["flaky"]).first)
                #expect(result.int("status") == 200, "\(result.raw)")
                #expect(try await herald.fcmInbox("unavailable-0001").messages.count == 1)
            }
        }
    }

    @Test("FCM 401 renews the access token once, and the message is sent")
    func fcmUnauthorizedRenewsAccessToken() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerAndroid("pixel", fcmToken: "fcm-pixel-0002")
                #expect(try await herald.pushAlert(toDevices: ["pixel"]).first?.int("status") == 200)
                // The sandbox forgets the token Herald cached: the next send is answered 401.
                let revoked = try await keyedHTTP("POST", herald.sandboxAdmin + "/fcm/revoke")
                try #require(revoked.status == 204)
                let after = try #require(try await herald.pushAlert(toDevices: ["pixel"]).first)
                #expect(after.int("status") == 200, "\(after.raw)")
                #expect(try await herald.fcmInbox("fcm-pixel-0002").messages.count == 2)
            }
        }
    }

    @Test("Web Push: 201 delivered and decrypted; 410 and 404 remove the subscription; 413 is payloadTooLarge; 429 honours Retry-After")
    func webPushAnswers() async throws {
        try await withScratch { scratch in
            try await withFeedbackListener(in: scratch) { listener in
                let yaml = SandboxedHerald.configuration(in: scratch, feedbackURL: listener.url)
                try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                    var ids: [String: String] = [:]
                    for prefix in ["", "gone", "notfound", "toolarge", "quota"] {
                        let subscription = try await herald.subscribe(prefix: prefix)
                        let device = prefix.isEmpty ? "fine" : prefix
                        ids[device] = subscription.id
                        try await herald.registerWeb(device, subscription: subscription.json)
                    }
                    let started = ContinuousClock.now
                    let results = try await herald.pushAlert(toDevices: ["fine", "gone", "notfound", "toolarge", "quota"])
                    let elapsed = ContinuousClock.now - started
                    func row(_ device: String) -> JSONObject? { results.first { $0.string("device") == device } }
                    #expect(row("fine")?.int("status") == 201)
                    #expect(row("gone")?.int("status") == 410 && row("gone")?.string("reason") == "subscriptionGone")
                    #expect(row("notfound")?.int("status") == 404 && row("notfound")?.string("reason") == "subscriptionGone")
                    #expect(row("toolarge")?.int("status") == 413 && row("toolarge")?.string("reason") == "payloadTooLarge")
                    #expect(row("quota")?.int("status") == 201, "sent after the 429's Retry-After")
                    #expect(elapsed >= .seconds(1))
                    let fine = try await herald.webPushInbox(try #require(ids["fine"])).messages
                    #expect(fine.first?.object("message")?.string("title") == "Hi")
                    #expect(fine.first?.object("message")?.object("data")?.int("order") == 42)
                    #expect(fine.first?.object("headers")?.string("topic") == "hello", "the collapse id is the Topic")
                    // Gone and not found are never sent to again; their feedback went out.
                    let again = try await herald.pushAlert(toDevices: ["gone", "notfound"])
                    #expect(again.allSatisfy { $0.string("reason") == "tokenInvalidated" }, "\(again.map(\.raw))")
                    let announced = await pollUntil(timeout: .seconds(10), interval: .milliseconds(100)) {
                        listener.received.filter { $0.json.string("type") == "token.invalid" }.count >= 2
                    }
                    #expect(announced)
                }
            }
        }
    }

    @Test("a device that changes platform keeps its pending notifications, which go to the new platform")
    func changingPlatformReroutesPending() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let path = "/v1/apps/\(WebhookE2E.app)/devices/switcher"
                let put = try await herald.api("PUT", path, json: ["timeZone": "UTC", "token": WebhookE2E.token(7)])
                try #require(put.status == 201, "\(put.text)")
                let at = wholeSecond(after: 3)
                let scheduled = try await herald.api("POST", path + "/notifications",
                                                     json: ["id": "later", "fireDate": utc(at), "alert": ["body": "later"]])
                try #require(scheduled.status == 201, "\(scheduled.text)")
                try await herald.registerAndroid("switcher", fcmToken: "fcm-switcher-01")
                let arrived = await pollUntil(timeout: .seconds(15), interval: .milliseconds(200)) {
                    ((try? await herald.fcmInbox("fcm-switcher-01").messages.count) ?? 0) == 1
                }
                #expect(arrived, "the notification scheduled on iOS fired through FCM")
                #expect(try await herald.inbox(WebhookE2E.token(7)).isEmpty, "nothing went to the old APNs token")
            }
        }
    }

    @Test("an app whose FCM endpoint is down delays no other app's android or web deliveries")
    func oneAppsDownChannelDelaysNoOther() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                // A second app on the same service account, its endpoint a port nobody listens on.
                let broken = try await herald.sandboxServiceAccount().account
                let deadPort = try unusedLoopbackPort()
                let created = try await herald.api("PUT", "/v1/apps/com.example.broken", json: [
                    "fcm": ["serviceAccount": broken, "endpoint": "https://127.0.0.1:\(deadPort)",
                            "caFile": TestCertificates.path("dev-ca.pem")],
                ])
                try #require(created.status == 201, "\(created.text)")
                try await herald.registerAndroid("stuck", fcmToken: "fcm-stuck-0001", app: "com.example.broken")
                try await herald.registerAndroid("pixel", fcmToken: "fcm-pixel-0003")
                let subscription = try await herald.subscribe()
                try await herald.registerWeb("laptop", subscription: subscription.json)
                let at = wholeSecond(after: 3)
                for (app, device) in [("com.example.broken", "stuck"), (WebhookE2E.app, "pixel"), (WebhookE2E.app, "laptop")] {
                    let reply = try await herald.api("POST", "/v1/apps/\(app)/devices/\(device)/notifications",
                                                     json: ["id": "same-instant", "fireDate": utc(at), "alert": ["body": "now"]])
                    try #require(reply.status == 201, "\(reply.text)")
                }
                let delivered = await eventually(timeout: .seconds(15), interval: .milliseconds(100)) { () -> (Double, Double)? in
                    guard let fcm = try? await herald.fcmInbox("fcm-pixel-0003").messages.first?.double("receivedAt"),
                          let web = try? await herald.webPushInbox(subscription.id).messages.first?.double("receivedAt")
                    else { return nil }
                    return (fcm, web)
                }
                let (fcmAt, webAt) = try #require(delivered, "the healthy app's installations were reached")
                for received in [fcmAt, webAt] {
                    #expect(Date(timeIntervalSinceReferenceDate: received).timeIntervalSince(at) < 1.0,
                            "delivered within a second though the other app's FCM is unreachable")
                }
                let stuck = try await herald.deliveries("stuck", app: "com.example.broken")
                #expect(!stuck.contains { $0.string("outcome") == "sent" }, "the broken app's message did not get through")
            }
        }
    }

    @Test("herald doctor checks the FCM settings (account, access token, a validate_only send) and the Web Push keys")
    func doctorChecksFCMAndWebPush() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let environment = ["HERALD_SERVER": herald.baseURL, "HERALD_API_KEY": WebhookE2E.adminKey]
                let healthy = try await runHerald(["doctor", "--app", WebhookE2E.app], environment: environment, in: scratch)
                #expect(healthy.succeeded, "\(healthy)")
                for check in ["fcm.settings", "fcm.accessToken", "fcm.send", "webPush.subject", "webPush.vapidKeys"] {
                    #expect(healthy.stdout.contains("ok    \(check):"), "\(check): \(healthy)")
                }
                // A service account the token endpoint does not know: refused, in plain words.
                let sandbox = try await herald.sandboxServiceAccount().sandbox
                let stranger: [String: Any] = [
                    "type": "service_account", "project_id": "stranger", "client_email": "stranger@stranger.iam.gserviceaccount.com",
                    "private_key": try String(contentsOfFile: TestCertificates.path("dev-client.key"), encoding: .utf8),
                    "token_uri": sandbox + "/token",
                ]
                let put = try await herald.api("PUT", "/v1/apps/com.example.stranger", json: [
                    "fcm": ["serviceAccount": stranger, "endpoint": sandbox, "caFile": TestCertificates.path("dev-ca.pem")],
                ])
                try #require(put.status == 201, "\(put.text)")
                let refused = try await runHerald(["doctor", "--app", "com.example.stranger"], environment: environment, in: scratch)
                #expect(refused.status == 1, "\(refused)")
                #expect(refused.stdout.contains("FAIL  fcm.accessToken:"), "\(refused)")
                #expect(refused.stdout.contains("skip  fcm.send:"), "\(refused)")
            }
        }
    }

    @Test("the status pages show each installation's platform and chart pushes per minute by platform")
    func statusPagesShowPlatforms() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerAndroid("pixel", fcmToken: "fcm-pixel-0004")
                try await herald.registerWeb("laptop", subscription: try await herald.subscribe().json)
                let results = try await herald.pushAlert(toDevices: ["pixel", "laptop"])
                #expect(results.allSatisfy { ($0.int("status") ?? 0) / 100 == 2 }, "\(results.map(\.raw))")
                let app = try await herald.api("GET", "/ui/apps/\(WebhookE2E.app)")
                #expect(app.status == 200)
                #expect(app.text.contains("data-device=\"pixel\" data-platform=\"android\""), "\(app.text)")
                #expect(app.text.contains("data-device=\"laptop\" data-platform=\"web\""))
                let overview = try await herald.api("GET", "/ui")
                #expect(overview.text.contains("id=\"pushes-by-platform\""))
                #expect(overview.text.contains(": 1 android</title>") && overview.text.contains(": 1 web</title>"), "\(overview.text)")
            }
        }
    }

    @Test("The README tour's android and web part: device put --platform, sandbox subscribe, schedule, sandbox inbox, app show")
    func readmeTourThroughTheCLI() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let environment = ["HERALD_SERVER": herald.baseURL, "HERALD_API_KEY": WebhookE2E.adminKey,
                                   "HERALD_SANDBOX_ADMIN": herald.sandboxAdmin]
                func cli(_ arguments: String...) async throws -> CommandResult {
                    let result = try await runHerald(arguments, environment: environment, in: scratch)
                    try #require(result.succeeded, "herald \(arguments.joined(separator: " ")): \(result)")
                    return result
                }
                let app = WebhookE2E.app
                _ = try await cli("device", "put", app, "pixel-1", "--time-zone", "Europe/Paris", "--platform", "android",
                                  "--fcm-token", "fcm-pixel-1")
                let subscription = try await cli("sandbox", "subscribe")
                let file = scratch.file("subscription.json")
                try subscription.stdout.write(to: file, atomically: true, encoding: .utf8)
                _ = try await cli("device", "put", app, "browser-1", "--time-zone", "Europe/Paris", "--platform", "web",
                                  "--web-push", file.path)
                let shown = try await cli("app", "show", app)
                #expect(shown.stdout.contains("VAPID public key: B"), "\(shown)")
                let device = try await cli("device", "show", app, "pixel-1")
                #expect(device.stdout.contains("android") && device.stdout.contains("fcm-pixel-1"), "\(device)")
                let at = utc(wholeSecond(after: 3))
                for target in ["pixel-1", "browser-1"] {
                    _ = try await cli("schedule", "--app", app, "--device", target, "--id", "hello", "--at", at,
                                      "--title", "Hello", "--body", "from Herald")
                }
                let fcm = await eventually(timeout: .seconds(15), interval: .milliseconds(250)) { () -> String? in
                    guard let result = try? await runHerald(["sandbox", "inbox", "--fcm", "fcm-pixel-1"], environment: environment,
                                                            in: scratch), result.stdout.contains("from Herald") else { return nil }
                    return result.stdout
                }
                #expect(fcm != nil, "the FCM message shows in the sandbox inbox")
                let web = try await cli("sandbox", "inbox", "--web-push", file.path)
                #expect(web.stdout.contains("Hello") && web.stdout.contains("from Herald"), "decrypted: \(web)")
            }
        }
    }

    @Test("a suspended android installation with a backlog gets a data-only wake message through FCM, as iOS gets content-available")
    func androidWakePushGoesThroughFCM() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let path = "/v1/apps/\(WebhookE2E.app)/devices/pixel"
                let put = try await herald.api("PUT", path, json: ["timeZone": "UTC", "platform": "android", "fcmToken": "fcm-wake-0001",
                                                                   "backgroundModes": ["remote-notification"]])
                try #require(put.status == 201, "\(put.text)")
                for state in ["background", "suspended"] {
                    let reply = try await herald.api("PUT", path + "/state", json: ["state": state])
                    try #require(reply.status == 200, "\(reply.text)")
                }
                let events = try await herald.api("POST", path + "/events", json: ["events": [["kind": "batteryLevel", "value": 0.5]]])
                try #require(events.status == 200, "\(events.text)")
                let woken = await eventually(timeout: .seconds(10), interval: .milliseconds(100)) { () -> JSONObject? in
                    try? await herald.fcmInbox("fcm-wake-0001").messages.first?.object("message")
                }
                let message = try #require(woken, "a wake message reached FCM")
                #expect(message.object("data")?.string("herald_wake") == "1")
                #expect(message.object("notification") == nil, "data-only: nothing shown")
                #expect(message.object("android")?.string("priority") == "normal")
            }
        }
    }

    @Test("an app whose FCM endpoint is down still reaches its own web installations on time")
    func oneChannelDownDelaysNoOtherChannelOfTheApp() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let tokenAtSandbox = try await herald.sandboxServiceAccount().account
                let app = "com.example.split"
                // A silent FCM endpoint: it accepts connections and never answers.
                let silent = try SilentListener()
                defer { silent.close() }
                let created = try await herald.api("PUT", "/v1/apps/\(app)", json: [
                    "fcm": ["serviceAccount": tokenAtSandbox, "endpoint": "https://127.0.0.1:\(silent.port)",
                            "caFile": TestCertificates.path("dev-ca.pem")],
                    "webPush": ["subject": "mailto:ops@example.com", "caFile": TestCertificates.path("dev-ca.pem"),
                                "allowedHosts": ["127.0.0.1"]],
                ])
                try #require(created.status == 201, "\(created.text)")
                try await herald.registerAndroid("phone", fcmToken: "fcm-split-0001", app: app)
                let subscription = try await herald.subscribe()
                try await herald.registerWeb("laptop", subscription: subscription.json, app: app)
                let at = wholeSecond(after: 3)
                for device in ["phone", "laptop"] {
                    let reply = try await herald.api("POST", "/v1/apps/\(app)/devices/\(device)/notifications",
                                                     json: ["id": "same-instant", "fireDate": utc(at), "alert": ["body": "now"]])
                    try #require(reply.status == 201, "\(reply.text)")
                }
                let received = await eventually(timeout: .seconds(15), interval: .milliseconds(100)) { () -> Double? in
                    try? await herald.webPushInbox(subscription.id).messages.first?.double("receivedAt")
                }
                let webAt = try #require(received, "the web installation was reached")
                #expect(Date(timeIntervalSinceReferenceDate: webAt).timeIntervalSince(at) < 1.0,
                        "the web push left within a second though the app's FCM endpoint never answers")
            }
        }
    }
}

/// A TCP listener that accepts connections and never reads or writes: a silent peer.
final class SilentListener: @unchecked Sendable {
    let port: Int
    private let socket: Int32
    private let thread: Thread

    init() throws {
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 16) == 0 else { throw EndToEndFailure("cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        socket = listener
        thread = Thread {
            // Accepted connections are kept open and never served; they close with the process.
            while Glibc.accept(listener, nil, nil) >= 0 {}
        }
        thread.start()
    }

    func close() { Glibc.shutdown(socket, Int32(SHUT_RDWR)); _ = Glibc.close(socket) }
}
