import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPush
import HeraldSandbox
import HeraldScheduler
import HeraldStorage
import HeraldTestSupport
import Testing

@Suite("Delivery of fired occurrences as alert pushes")
struct PushDeliveryChannelTests {
    static let content = NotificationContent(alert: .init(title: "Wake up", subtitle: "Alarm", body: "It is 7:00"),
                                             sound: "chime.caf", badge: 2, category: "ALARM", threadId: "alarms",
                                             userInfo: ["alarmId": .string("a1")])

    static func fired(_ device: Device, notificationID: String = "wake", index: Int = 0,
                      content: NotificationContent = PushDeliveryChannelTests.content) throws -> FiredOccurrence {
        try FiredOccurrence(occurrence: Occurrence(appID: device.appID, deviceID: device.id, notificationID: notificationID,
                                               index: index, scheduledFor: Date(), late: false, missed: 0),
                        content: content, device: device)
    }

    /// A store with the app (pushing to `sandbox`) registered, and a channel over a gateway.
    static func withChannel<T>(_ sandbox: SandboxGateway, _ body: (PushDeliveryChannel, SQLiteStore, App) async throws -> T) async throws -> T {
        try await withStore { store in
            let app = sandbox.app()
            _ = try await store.saveApp(app)
            return try await withPushGateway(ledger: StoredTokenLedger(store: store)) { gateway in
                try await body(PushDeliveryChannel(gateway: gateway, store: store), store, app)
            }
        }
    }

    @Test("a fired occurrence for a device with a token becomes an alert push with the notification's title, body, sound and badge")
    func occurrenceBecomesAlertPush() async throws {
        try await withSandbox { sandbox in
            try await Self.withChannel(sandbox) { channel, store, app in
                let token = deviceToken(800)
                let device = Device(appID: app.id, id: "phone", timeZone: "Europe/Paris", token: token)
                _ = try await store.saveDevice(device, now: Date())

                let outcomes = await channel.deliver([try Self.fired(device)])
                try #require(outcomes.count == 1)
                let outcome = outcomes[0]
                #expect(outcome.route == .push)
                #expect(outcome.result == .sent)
                #expect(outcome.apnsStatus == 200)
                let apnsID = try #require(outcome.apnsID)

                let entry = try #require(sandbox.inbox(token).first)
                #expect(entry.apnsId == apnsID)
                #expect(entry.pushType == .alert)
                #expect(entry.topic == app.id)
                #expect(entry.priority == 10)
                #expect(entry.alert?["title"] == .string("Wake up"))
                #expect(entry.alert?["subtitle"] == .string("Alarm"))
                #expect(entry.alert?["body"] == .string("It is 7:00"))
                #expect(entry.aps?["sound"] == .string("chime.caf"))
                #expect(entry.aps?["badge"] == .number(2))
                #expect(entry.aps?["category"] == .string("ALARM"))
                #expect(entry.aps?["thread-id"] == .string("alarms"))
                if case .object(let root) = entry.payload {
                    #expect(root["alarmId"] == .string("a1"), "userInfo travels beside aps")
                }
            }
        }
    }

    @Test("the apns-id is stable for an occurrence: delivering it again carries the same id; another occurrence gets another")
    func stableApnsID() async throws {
        try await withSandbox { sandbox in
            try await Self.withChannel(sandbox) { channel, store, app in
                let token = deviceToken(801)
                let device = Device(appID: app.id, id: "phone", timeZone: "UTC", token: token)
                _ = try await store.saveDevice(device, now: Date())

                let first = await channel.deliver([try Self.fired(device, index: 3)])
                let again = await channel.deliver([try Self.fired(device, index: 3)])
                let next = await channel.deliver([try Self.fired(device, index: 4)])
                let other = await channel.deliver([try Self.fired(device, notificationID: "other", index: 3)])

                let ids = sandbox.inbox(token).map(\.apnsId)
                try #require(ids.count == 4)
                #expect(ids[0] == ids[1], "a re-delivery of the same occurrence carries the same apns-id")
                #expect(ids[2] != ids[0])
                #expect(ids[3] != ids[0] && ids[3] != ids[2])
                #expect(ids.allSatisfy { $0 == $0.lowercased() && UUID(uuidString: $0) != nil })
                #expect([first, again, next, other].map { $0.first?.apnsID } == ids.map(Optional.some))
            }
        }
    }

    @Test("the scheduler's fired occurrence is delivered as a push and recorded with its APNs status and apns-id")
    func schedulerDeliversThroughPush() async throws {
        try await withSandbox { sandbox in
            try await Self.withChannel(sandbox) { channel, store, app in
                let token = deviceToken(802)
                let start = Date(timeIntervalSince1970: 1_900_000_000)
                let device = Device(appID: app.id, id: "phone", timeZone: "UTC", token: token)
                _ = try await store.saveDevice(device, now: start)
                let fireAt = start.addingTimeInterval(60)
                let notification = LocalNotification(appID: app.id, deviceID: device.id, id: "wake", fireDate: .instant(fireAt),
                                                     timeZone: .absolute, repeatRule: nil, content: Self.content,
                                                     nextIndex: 0, nextFireDate: fireAt)
                let scheduled = try await store.schedule(notification, now: start)

                let clock = ManualClock(now: start)
                let engine = SchedulerEngine(store: store, channel: channel, clock: clock, logger: quietLogger("herald.scheduler.test"))
                try await engine.load()
                await engine.arm([try #require(scheduled.armed)])
                clock.advance(to: fireAt)
                #expect(await engine.fireDueBatch() == 1)

                let entry = try #require(sandbox.inbox(token).first)
                #expect(entry.alert?["title"] == .string("Wake up"))
                let deliveries = try await store.deliveries(appID: app.id, deviceID: device.id, limit: 10)
                try #require(deliveries.count == 1)
                #expect(deliveries[0].channel == .push)
                #expect(deliveries[0].outcome == .sent)
                #expect(deliveries[0].apnsStatus == 200)
                #expect(deliveries[0].apnsID == entry.apnsId)
                #expect(deliveries[0].occurrenceID == "wake#0")
            }
        }
    }

    @Test("a device without a token, a dead token, or an oversized notification is not pushed, and says why")
    func undeliverable() async throws {
        let dead = deviceToken(803)
        try await withSandbox(faults: SandboxFaults(unregistered: [dead])) { sandbox in
            try await Self.withChannel(sandbox) { channel, store, app in
                let tokenless = Device(appID: app.id, id: "tablet", timeZone: "UTC")
                let gone = Device(appID: app.id, id: "old-phone", timeZone: "UTC", token: dead)
                let live = Device(appID: app.id, id: "phone", timeZone: "UTC", token: deviceToken(804))
                let huge = NotificationContent(alert: .init(title: "Too long", body: String(repeating: "x", count: 5000)))

                let outcomes = await channel.deliver(try [Self.fired(tokenless), Self.fired(gone), Self.fired(live, content: huge),
                                                      Self.fired(live, notificationID: "fits")])
                #expect(outcomes[0] == DeliveryOutcome(.none, .noDeviceToken))
                #expect(outcomes[1].route == .push)
                #expect(outcomes[1].result == .refused("Unregistered"))
                #expect(outcomes[1].apnsStatus == 410)
                #expect(outcomes[2].route == .push)
                #expect(outcomes[2].result == .refused("payloadTooLarge"), "refused before sending")
                #expect(outcomes[2].apnsStatus == nil)
                #expect(outcomes[3].result == .sent)
                #expect(sandbox.everything.count == 1, "only the push that fits reached APNs")

                let again = await channel.deliver([try Self.fired(gone, index: 1)])
                #expect(again[0].result == .refused("tokenInvalidated"), "a dead token is not pushed to again")
            }
        }
    }

    @Test("an app without push settings has its occurrences recorded, not pushed")
    func appWithoutPush() async throws {
        try await withSandbox { sandbox in
            try await withStore { store in
                let app = App(id: "com.example.quiet")
                _ = try await store.saveApp(app)
                try await withPushGateway { gateway in
                    let channel = PushDeliveryChannel(gateway: gateway, store: store)
                    let device = Device(appID: app.id, id: "phone", timeZone: "UTC", token: deviceToken(805))
                    let outcomes = await channel.deliver([try Self.fired(device)])
                    #expect(outcomes == [DeliveryOutcome.recorded])
                    #expect(sandbox.everything.isEmpty)
                }
            }
        }
    }
}
