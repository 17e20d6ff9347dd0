import Foundation
import HeraldCoalescer
import HeraldCore
import HeraldDelivery
import HeraldPush
import HeraldStorage
import HeraldTestSupport
import Testing

// "Herald holds the notification in the device's inbox and delivers it when the device wakes":
// the claim may hold a firing itself, but only one the router would hold too.

@Suite("The claim holds only what the router would hold")
struct InboxOnlyRuleTests {
    static let app = "com.example.app"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Each device, and whether the rule takes its alert firings (a Live Activity never).
    static let devices: [(device: Device, alertsHeld: Bool)] = [
        (Device(appID: app, id: "no-token", timeZone: "UTC", state: .background), true),
        (Device(appID: app, id: "voip-only", timeZone: "UTC", voipToken: "cafe", state: .suspended), true),
        (Device(appID: app, id: "android-no-token", timeZone: "UTC", platform: .android), true),
        (Device(appID: app, id: "web-no-subscription", timeZone: "UTC", platform: .web), true),
        (Device(appID: app, id: "token", timeZone: "UTC", token: String(repeating: "ab", count: 32)), false),
        (Device(appID: app, id: "active", timeZone: "UTC", state: .active), false),
        (Device(appID: app, id: "audience", timeZone: "UTC",
                broadcastChannel: BroadcastChannel(name: "scores", apnsChannelID: "Y2hhbm5lbA==", messageStoragePolicy: 0)),
         false),
    ]

    static let contents: [(name: String, content: NotificationContent, isLiveActivity: Bool)] = [
        ("alert", NotificationContent(alert: .init(body: "Your alarm")), false),
        ("alert with a liveActivity key", NotificationContent(alert: .init(body: "Kick-off"),
                                                              userInfo: ["liveActivity": .string("match-1")]), false),
        ("activity start", NotificationContent(liveActivity: LiveActivity(event: .start, attributesType: "Match")), true),
        ("activity update", NotificationContent(liveActivity: LiveActivity(event: .update, activity: "match-1")), true),
    ]

    @Test("Every firing the inbox-only rule takes, the router holds in the inbox; it takes no Live Activity and no device with a way out")
    func ruleIsASubsetOfTheRouter() async throws {
        let directory = NSTemporaryDirectory() + "herald-inbox-rule-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(directory: directory)
        _ = try await store.saveApp(App(id: Self.app))
        let gateway = PushGateway(ledger: StoredTokenLedger(store: store))
        let router = DeviceRouter(streams: LiveStreams(), push: PushDeliveryChannel(gateway: gateway, store: store),
                                  ledger: StoredTokenLedger(store: store), store: store)
        let rule = try #require(router.inboxOnlyRule)
        var expectedHeld: Set<String> = []
        for (device, alertsHeld) in Self.devices {
            _ = try await store.saveDevice(device, now: Self.start)
            for (index, (name, content, isLiveActivity)) in Self.contents.enumerated() {
                let id = "\(device.id) \(name)"
                let at = Self.start.addingTimeInterval(60)
                _ = try await store.schedule(LocalNotification(appID: Self.app, deviceID: device.id, id: id, fireDate: .instant(at),
                                                               timeZone: .absolute, repeatRule: nil, content: content,
                                                               nextIndex: 0, nextFireDate: at), now: Self.start)
                let stored = String(decoding: try JSONEncoder().encode(content), as: UTF8.self)
                let takes = rule.holds(device, storedContent: stored)
                // Content that carries the key anywhere takes the full path: slower, never wrong.
                #expect(takes == (alertsHeld && !isLiveActivity && index == 0), "\(id)")
                if takes { expectedHeld.insert(id) }
            }
        }
        let fired = try await StoreFixtures(app: Self.app, start: Self.start).claimAll(store, at: 60)
        let outcomes = await router.deliver(fired)
        await gateway.shutdown()
        for (fired, outcome) in zip(fired, outcomes)
        where rule.holds(fired.device, storedContent: fired.contentJSON) {
            #expect(outcome == DeliveryOutcome(.inbox, .held), "\(fired.occurrence.notificationID)")
        }
        #expect(Set(fired.filter { rule.holds($0.device, storedContent: $0.contentJSON) }
            .map(\.occurrence.notificationID)) == expectedHeld)
        #expect(expectedHeld.count == 4)
    }
}
