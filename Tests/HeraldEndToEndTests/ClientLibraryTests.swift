import Foundation
import HeraldClient
import HeraldTestSupport
import Testing

// HeraldClient, the typed Swift client of the HTTP API, against the real `herald serve`: what
// an app team does through it, idempotent scheduling, and the wake / inbox / acknowledge
// hand-over. (The event stream across restarts is in ClientLibraryStreamTests.swift.)
//
// This file imports HeraldClient: `Device`, `Platform`, `JSONValue`, `HeraldError` here are the
// library's types.

@Suite("HeraldClient against the real server", .serialized)
struct ClientLibraryTests {
    @Test("An app team can work through HeraldClient alone: apps, devices, scheduling and paging, cancel, present, deliveries, state, events, hooks, pushes, status, health, documents and errors",
          .timeLimit(.minutes(3)))
    func appTeamTour() async throws {
        try await withScratch { scratch in
            // The sandbox's demo app pushes to the APNs sandbox beside the server. The tour makes
            // more requests a second than the default rate limit lets one key make.
            let yaml = SandboxedHerald.configuration(in: scratch) + "limits:\n  ratePerSecond: 10000\n  rateBurst: 10000\n"
            try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                let client = ClientE2E.client(baseURL: herald.baseURL, apiKey: WebhookE2E.adminKey)
                let app = WebhookE2E.app
                let token = WebhookE2E.token(0x7001)

                // Health, readiness and the documents.
                #expect(try await client.health().status == "ok")
                let ready = try await eventually(timeout: .seconds(20)) { () -> Health? in
                    let readiness = try await client.readiness()
                    return readiness.isHealthy ? readiness : nil
                }
                #expect(ready?.status == "ready", "the server never became ready")
                let document = try await client.openAPIDocument()
                #expect(document.contains("openapi:"), "\(document.prefix(200))")
                #expect(document.contains("/v1/apps/{app}/devices/{device}/events/stream"))

                // Apps: the demo app is there with its push settings; a second one is created.
                let demo = try await client.app(app)
                #expect(demo.id == app)
                #expect(demo.push != nil, "the demo app pushes to the sandbox")
                let other = try await client.putApp("com.example.clientlib.other", AppDefinition(overflow: .keepSoonest))
                #expect(other.id == "com.example.clientlib.other")
                #expect(other.overflow == .keepSoonest)
                var appIDs: [String] = []
                for try await listed in client.allApps(pageSize: 1) { appIDs.append(listed.id) }
                #expect(Set(appIDs) == [app, "com.example.clientlib.other"], "allApps walks every page: \(appIDs)")
                #expect(appIDs.count == 2, "no app listed twice: \(appIDs)")

                // Devices of three platforms; the listing filters by platform and state.
                let phone = try await client.putDevice(app: app, device: "phone-1",
                                                       DeviceRegistration(timeZone: "Europe/Paris", token: token))
                #expect(phone.platform == .ios)
                #expect(phone.token == token)
                #expect(phone.timeZone == "Europe/Paris")
                try await client.putDevice(app: app, device: "phone-2", DeviceRegistration(timeZone: "UTC"))
                let pixel = try await client.putDevice(app: app, device: "pixel-1",
                                                       DeviceRegistration(timeZone: "UTC", platform: .android,
                                                                          fcmToken: "fcm-registration-token-0001"))
                #expect(pixel.platform == .android)
                var deviceIDs: [String] = []
                for try await listed in client.allDevices(app: app, pageSize: 1) { deviceIDs.append(listed.id) }
                #expect(deviceIDs.sorted() == ["phone-1", "phone-2", "pixel-1"], "allDevices walks every page: \(deviceIDs)")
                #expect(try await client.devices(app: app, platform: .android).items.map(\.id) == ["pixel-1"])
                #expect(try await client.devices(app: app, platform: .ios).items.map(\.id).sorted() == ["phone-1", "phone-2"])
                #expect(try await client.device(app: app, device: "phone-2").state == .notRunning)

                // State changes, and the state filter.
                let background = try await client.setState(app: app, device: "phone-2", .background)
                #expect(background.state == .background)
                #expect(background.woke, "notRunning to background wakes the device")
                #expect(try await client.devices(app: app, state: .background).items.map(\.id) == ["phone-2"])
                #expect(try await client.setState(app: app, device: "phone-2", .suspended).state == .suspended)
                #expect(try await client.devices(app: app, state: .background).items.isEmpty)
                #expect(try await client.devices(app: app, state: .suspended).items.map(\.id) == ["phone-2"])

                // Scheduling: a daily wall-clock series and four one-shots, far enough ahead never to fire here.
                let standup = try await client.schedule(app: app, device: "phone-2", NotificationRequest(
                    id: "standup", fireDate: "2035-06-01T09:00", timeZone: "Europe/Paris", repeat: RepeatRule(unit: .day),
                    alert: AlertContent(title: "Stand-up", body: "In the big room"), sound: "default", badge: 3,
                    userInfo: ["room": "big", "floor": 2]))
                #expect(standup.stored)
                #expect(!standup.replaced)
                #expect(!standup.replayed)
                #expect(standup.notification?.id == "standup")
                #expect(standup.notification?.nextFireDate == instant("2035-06-01T07:00:00Z"), "09:00 in Paris is 07:00 UTC in June")
                let soon = Date().addingTimeInterval(3600)
                for index in 0..<4 {
                    let result = try await client.schedule(app: app, device: "phone-2",
                                                           ClientE2E.oneShot("n-\(index)", at: soon.addingTimeInterval(Double(index) * 60)))
                    #expect(result.stored)
                }
                let expectedOrder = ["n-0", "n-1", "n-2", "n-3", "standup"]

                // Paging by hand, cursor after cursor, then with allNotifications: soonest first, each once.
                var paged: [String] = []
                var pages = 0
                var cursor: String?
                repeat {
                    let page = try await client.notifications(app: app, device: "phone-2", limit: 2, cursor: cursor)
                    #expect(page.items.count <= 2)
                    paged += page.items.map(\.id)
                    cursor = page.nextCursor
                    pages += 1
                } while cursor != nil && pages < 10
                #expect(paged == expectedOrder, "every page, soonest first: \(paged)")
                #expect(pages == 3, "five notifications in pages of two: \(pages) pages")
                var all: [String] = []
                for try await notification in client.allNotifications(app: app, device: "phone-2", pageSize: 2) {
                    all.append(notification.id)
                }
                #expect(all == expectedOrder)

                // One notification with a preview of its next occurrences.
                let preview = try await client.notification(app: app, device: "phone-2", id: "standup", occurrences: 3)
                #expect(preview.alert?.title == "Stand-up")
                #expect(preview.repeat?.unit == .day)
                #expect(preview.badge == 3)
                #expect(preview.userInfo?["room"] == "big")
                #expect(preview.occurrences?.count == 3)
                if let occurrences = preview.occurrences, occurrences.count == 3 {
                    #expect(occurrences[0] == instant("2035-06-01T07:00:00Z"))
                    #expect(occurrences[1].timeIntervalSince(occurrences[0]) == 86_400)
                    #expect(occurrences[2].timeIntervalSince(occurrences[1]) == 86_400)
                }

                // Cancel one, then all.
                try await client.cancelNotification(app: app, device: "phone-2", id: "n-0")
                let gone = await #expect(throws: HeraldError.self) {
                    try await client.notification(app: app, device: "phone-2", id: "n-0")
                }
                #expect(gone?.status == 404)
                #expect(gone?.reason == "notificationNotFound")
                #expect(try await client.cancelAllNotifications(app: app, device: "phone-2") == 4)
                #expect(try await client.notifications(app: app, device: "phone-2").items.isEmpty)

                // Present now: pushed to the sandbox for the device with a token, held for the one without.
                let pushed = try await client.present(app: app, device: "phone-1",
                                                      PresentRequest(id: "hello", alert: AlertContent(title: "Hello", body: "Now")))
                #expect(pushed.channel == .push)
                #expect(pushed.outcome == .sent)
                #expect(pushed.apnsStatus == 200)
                let held = try await client.present(app: app, device: "phone-2", PresentRequest(alert: AlertContent(body: "Later")))
                #expect(held.channel == .inbox)
                #expect(held.outcome == .held)
                let delivered = try await client.deliveries(app: app, device: "phone-1")
                #expect(delivered.items.contains { $0.notificationId == "hello" && $0.channel == .push }, "\(delivered.items)")
                #expect(try await eventually(timeout: .seconds(10)) { () -> Bool? in
                    try await herald.inbox(token).isEmpty ? nil : true
                } == true, "the sandbox device received the presented alert")

                // System events for an asleep device are queued and coalesced.
                let report = try await client.reportEvents(app: app, device: "phone-2", [
                    SystemEvent(kind: "orientation", value: "landscapeLeft"),
                    SystemEvent(kind: "batteryLevel", value: 0.5),
                    SystemEvent(kind: "batteryLevel", value: 0.4),
                ])
                #expect(report.accepted == 3)
                #expect(report.queued == 3)
                #expect(report.live == 0)
                #expect(report.backlog == 2)
                let backlog = try await client.eventBacklog(app: app, device: "phone-2")
                #expect(backlog.count == 2, "\(backlog)")
                #expect(backlog.first(where: { $0.kind == "batteryLevel" }) == CoalescedEvent(kind: "batteryLevel", value: 0.4, count: 2))
                #expect(backlog.first(where: { $0.kind == "orientation" })?.value == "landscapeLeft")

                // A signed hook: defined, listed, sent signed (a push to the sandbox), refused unsigned.
                let hook = try await client.putHook("orders", HookDefinition(
                    app: app, secrets: [WebhookE2E.hookSecret],
                    template: ["devices": "/user", "title": "Order {/order}", "body": "Now {/status}"]))
                #expect(hook.name == "orders")
                #expect(hook.secrets == 1, "secrets are counted, never shown")
                let hooks = try await client.hooks()
                #expect(hooks.items.map(\.name) == ["orders"])
                #expect(try await client.hook("orders").app == app)
                let body = Data(#"{"user": "phone-1", "order": "o-77", "status": "shipped"}"#.utf8)
                let hooked = try await client.sendHook("orders", body: body, secret: WebhookE2E.hookSecret)
                #expect(hooked.pushed)
                #expect(!hooked.replayed)
                #expect(hooked.results.count == 1)
                #expect(hooked.results.first?.isAccepted == true, "\(hooked.results)")
                let forged = await #expect(throws: HeraldError.self) {
                    try await client.sendHook("orders", body: body, secret: "whsec-not-the-hook-secret-00")
                }
                #expect(forged?.status == 401)
                #expect(forged?.reason == "invalidSignature")
                let hookPush = try await eventually(timeout: .seconds(10)) { () -> JSONObject? in
                    try await herald.inbox(token).first {
                        $0.object("payload")?.object("aps")?.object("alert")?.string("title") == "Order o-77"
                    }
                }
                #expect(hookPush?.object("payload")?.object("aps")?.object("alert")?.string("body") == "Now shipped")

                // Pushes now, to a token and to devices: a result row per token and per device.
                let toToken = try await client.push(Push(app: app, tokens: [token],
                                                         aps: ["alert": ["title": "Direct", "body": "To a token"]]))
                #expect(!toToken.replayed)
                #expect(toToken.results.count == 1)
                #expect(toToken.results.first?.token == token)
                #expect(toToken.results.first?.status == 200, "\(toToken.results)")
                #expect(toToken.results.first?.apnsId != nil)
                let toDevices = try await client.push([Push(app: app, devices: ["phone-1", "phone-2"],
                                                            aps: ["alert": ["body": "To devices"]])])
                #expect(toDevices.results.count == 2, "\(toDevices.results)")
                let phoneRow = toDevices.results.first { $0.device == "phone-1" }
                #expect(phoneRow?.isAccepted == true, "\(toDevices.results)")
                let tokenless = toDevices.results.first { $0.device == "phone-2" }
                #expect(tokenless != nil && tokenless?.isAccepted == false, "a device without a token is refused: \(toDevices.results)")
                #expect(try await eventually(timeout: .seconds(10)) { () -> Bool? in
                    let inbox = try await herald.inbox(token)
                    let titles = inbox.compactMap { $0.object("payload")?.object("aps")?.object("alert") }
                    return titles.contains { $0.string("title") == "Direct" } && titles.contains { $0.string("body") == "To devices" }
                        ? true : nil
                } == true, "both pushes reached the sandbox device")

                // Status, at every level.
                let overview = try await client.status()
                let demoLine = overview.apps.first { $0.app == app }
                #expect(demoLine?.devices == 3, "\(overview.apps)")
                let appStatus = try await client.status(app: app)
                #expect(appStatus.devices.map(\.device).sorted() == ["phone-1", "phone-2", "pixel-1"])
                let phone2 = appStatus.devices.first { $0.device == "phone-2" }
                #expect(phone2?.state == .suspended)
                #expect(phone2?.backlog == 2)
                #expect(phone2?.inbox == 1, "the presented alert waits in its inbox")
                let deviceStatus = try await client.status(app: app, device: "phone-2")
                #expect(deviceStatus.pending.isEmpty)
                #expect(deviceStatus.inbox.count == 1)

                // Metrics: the Prometheus text, counting what was just done.
                let metrics = try await client.metrics()
                #expect(metrics.contains("# TYPE"), "\(metrics.prefix(300))")
                #expect(metrics.contains("herald_"), "\(metrics.prefix(300))")

                // Errors: a refusal carries its status and reason; an unreachable server is a transport error.
                let missing = await #expect(throws: HeraldError.self) {
                    try await client.device(app: app, device: "no-such-device")
                }
                #expect(missing?.status == 404)
                #expect(missing?.reason == "deviceNotFound")
                if case .server(let status, let reason, let message)? = missing {
                    #expect(status == 404 && reason == "deviceNotFound" && !message.isEmpty)
                } else {
                    Issue.record("a missing device is HeraldError.server, not \(String(describing: missing))")
                }
                let nobody = try unusedLoopbackPort()
                let unreachable = ClientE2E.client(baseURL: "http://127.0.0.1:\(nobody)", retry: .none)
                let down = await #expect(throws: HeraldError.self) { try await unreachable.health() }
                if case .transport? = down {} else {
                    Issue.record("an unreachable server is HeraldError.transport, not \(String(describing: down))")
                }
            }
        }
    }

    @Test("A schedule retried under one Idempotency-Key is stored once and the retry is marked replayed")
    func idempotentSchedule() async throws {
        try await withScratch { scratch in
            try await withServer(in: scratch) { server in
                let client = ClientE2E.client(server)
                _ = try await client.putApp(ClientE2E.app)
                try await registerTokenless(client, device: "phone-1")
                let request = ClientE2E.oneShot("dentist", at: Date().addingTimeInterval(3600))
                let key = "schedule-dentist-\(UUID().uuidString)"

                let first = try await client.schedule(app: ClientE2E.app, device: "phone-1", request, idempotencyKey: key)
                #expect(first.stored)
                #expect(!first.replayed, "the first call under a key is not a replay")
                #expect(first.notification?.id == "dentist")

                // Cancelled between the two: a retry that ran again would bring it back.
                try await client.cancelNotification(app: ClientE2E.app, device: "phone-1", id: "dentist")
                let retry = try await client.schedule(app: ClientE2E.app, device: "phone-1", request, idempotencyKey: key)
                #expect(retry.replayed, "the retry gets the first answer, marked Idempotent-Replayed")
                #expect(retry.notification?.id == "dentist")
                #expect(retry.notification?.nextFireDate == first.notification?.nextFireDate)
                #expect(try await client.notifications(app: ClientE2E.app, device: "phone-1").items.isEmpty,
                        "the retry did not schedule it again")
                let absent = await #expect(throws: HeraldError.self) {
                    try await client.notification(app: ClientE2E.app, device: "phone-1", id: "dentist")
                }
                #expect(absent?.reason == "notificationNotFound")

                // Another key is another call: it schedules.
                let again = try await client.schedule(app: ClientE2E.app, device: "phone-1", request)
                #expect(!again.replayed)
                #expect(try await client.notifications(app: ClientE2E.app, device: "phone-1").items.map(\.id) == ["dentist"])
            }
        }
    }

    @Test("wake() returns the inbox and backlog and acknowledges them on the next wake; acknowledge(upTo:) does it explicitly",
          .timeLimit(.minutes(2)))
    func wakeAndAcknowledge() async throws {
        try await withScratch { scratch in
            try await withServer(in: scratch) { server in
                let app = ClientE2E.app
                let client = ClientE2E.client(server)
                _ = try await client.putApp(app)

                /// A device in background with no token and no stream: two one-shots fire into its
                /// inbox, and two reported events wait coalesced in its backlog. Returns the
                /// occurrence ids, once both are recorded as held.
                func prepare(_ device: String) async throws -> [String] {
                    try await registerTokenless(client, device: device)
                    #expect(try await client.setState(app: app, device: device, .background).state == .background)
                    let report = try await client.reportEvents(app: app, device: device, [
                        SystemEvent(kind: "orientation", value: "landscapeLeft"), SystemEvent(kind: "batteryLevel", value: 0.3),
                    ])
                    #expect(report.queued == 2, "a background device without a stream gets its events queued")
                    let due = Date().addingTimeInterval(1.5)
                    for index in 0..<2 {
                        try await client.schedule(app: app, device: device,
                                                  ClientE2E.oneShot("\(device)-\(index)", at: due.addingTimeInterval(Double(index) * 0.1)))
                    }
                    let held = try await eventually(timeout: .seconds(20), interval: .milliseconds(100)) { () -> [Delivery]? in
                        let found = try await client.deliveries(app: app, device: device).items
                        return found.count == 2 && found.allSatisfy({ $0.outcome == .held }) ? found : nil
                    }
                    try #require(held != nil, "\(device): both one-shots fire into the inbox")
                    #expect(held?.allSatisfy { $0.channel == .inbox } == true)
                    #expect(try await client.eventBacklog(app: app, device: device).count == 2)
                    return ["\(device)-0#0", "\(device)-1#0"]
                }

                // Implicit: the next wake acknowledges what the previous one returned.
                let sleeperA = try await prepare("sleeper-a")
                let first = try await client.wake(app: app, device: "sleeper-a")
                #expect(first.woke)
                #expect(first.state == .background)
                #expect(first.inbox.map(\.occurrenceId) == sleeperA, "the inbox, oldest first")
                let seqs = first.inbox.compactMap(\.seq)
                #expect(seqs.count == 2 && seqs == seqs.sorted(), "each item carries its hand-over id: \(seqs)")
                #expect(Set(first.notifications.map(\.kind)) == ["orientation", "batteryLevel"])
                #expect(first.backlogSeq != nil)
                #expect(client.lastHandOver(app: app, device: "sleeper-a") == first.lastHandOverID,
                        "the client remembers what it returned")
                let second = try await client.wake(app: app, device: "sleeper-a")
                #expect(second.inbox.isEmpty, "acknowledged by the second wake: \(second.inbox.map(\.occurrenceId))")
                #expect(second.notifications.isEmpty, "\(second.notifications)")
                #expect(second.backlogSeq == nil)
                let stranger = ClientE2E.client(server)
                let third = try await stranger.wake(app: app, device: "sleeper-a")
                #expect(third.inbox.isEmpty && third.notifications.isEmpty,
                        "the server forgot them, not just this client: \(third)")

                // Explicit: until acknowledged, every wake hands it all over again; acknowledge(upTo:) ends that.
                let sleeperB = try await prepare("sleeper-b")
                let looker = ClientE2E.client(server)
                let seen = try await looker.wake(app: app, device: "sleeper-b")
                #expect(seen.inbox.map(\.occurrenceId) == sleeperB)
                let acker = ClientE2E.client(server)
                let again = try await acker.wake(app: app, device: "sleeper-b")
                #expect(again.inbox.map(\.occurrenceId) == sleeperB, "not acknowledged: handed over again")
                #expect(again.inbox.map(\.seq) == seen.inbox.map(\.seq), "with the same hand-over ids")
                #expect(Set(again.notifications.map(\.kind)) == ["orientation", "batteryLevel"], "the backlog too")
                let upTo = try #require(again.lastHandOverID)
                let acknowledged = try await acker.acknowledge(app: app, device: "sleeper-b", upTo: upTo)
                #expect(acknowledged.acknowledged == 2)
                #expect(acknowledged.backlog)
                #expect(acker.lastHandOver(app: app, device: "sleeper-b") == upTo)
                let after = try await ClientE2E.client(server).wake(app: app, device: "sleeper-b")
                #expect(after.inbox.isEmpty && after.notifications.isEmpty, "acknowledged for good: \(after)")
            }
        }
    }
}
