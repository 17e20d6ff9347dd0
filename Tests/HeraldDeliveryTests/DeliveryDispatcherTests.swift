import Foundation
import HeraldCore
import HeraldDelivery
import HeraldScheduler
import HeraldStorage
import HeraldTestSupport
import ServiceLifecycle
import Synchronization
import Testing

// "The timer never waits on the network. Firing commits each occurrence to a durable fire log and
// a separate dispatcher delivers from the log. A slow APNs, a 429 or a hung connection for one
// app delays nothing else."

/// Delivers instantly, except for one app whose deliveries take `delay`; remembers when each
/// occurrence arrived.
final class SlowAppChannel: DeliveryChannel {
    let slowApp: String
    let delay: Duration
    private let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
    private let finished = Mutex<Set<String>>([])

    init(slowApp: String, delay: Duration) {
        self.slowApp = slowApp
        self.delay = delay
    }

    func arrival(_ notificationID: String) -> ContinuousClock.Instant? { arrivals.withLock { $0[notificationID] } }
    func isFinished(_ notificationID: String) -> Bool { finished.withLock { $0.contains(notificationID) } }

    func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        let now = ContinuousClock.now
        arrivals.withLock { arrivals in
            for fired in batch { arrivals[fired.occurrence.notificationID] = now }
        }
        if batch.contains(where: { $0.device.appID == slowApp }) {
            try? await Task.sleep(for: delay)
        }
        finished.withLock { finished in
            for fired in batch { finished.insert(fired.occurrence.notificationID) }
        }
        return Array(repeating: DeliveryOutcome.recorded, count: batch.count)
    }
}

/// Two apps, one device each, on a fresh store and a manual clock.
struct TwoAppFixture {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    let directory = NSTemporaryDirectory() + "herald-dispatch-\(UUID().uuidString)"
    let clock = ManualClock(now: TwoAppFixture.start)
    let store: SQLiteStore

    init() async throws {
        store = try SQLiteStore(directory: directory)
        for app in ["com.example.slow", "com.example.fast"] {
            _ = try await store.saveApp(App(id: app))
            _ = try await store.saveDevice(Device(appID: app, id: "phone", timeZone: "UTC"), now: clock.now())
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// A one-shot for `app` at `seconds` after the start; returns its timer entry.
    func schedule(_ id: String, app: String, in seconds: TimeInterval) async throws -> TimerEntry {
        let at = Self.start.addingTimeInterval(seconds)
        let notification = LocalNotification(appID: app, deviceID: "phone", id: id, fireDate: .instant(at), timeZone: .absolute,
                                             repeatRule: nil, content: NotificationContent(alert: .init(body: id)),
                                             nextIndex: 0, nextFireDate: at)
        return try #require(try await store.schedule(notification, now: clock.now()).armed)
    }

    func outcomes(app: String) async throws -> [String] {
        try await store.deliveries(appID: app, deviceID: "phone", limit: 100).map(\.outcome.rawValue)
    }
}

@Suite("Delivery dispatcher")
struct DeliveryDispatcherTests {
    @Test("A slow app's delivery never delays another app's firing or delivery", arguments: 1...10)
    func slowAppDoesNotBlockOthers(round: Int) async throws {
        let fixture = try await TwoAppFixture()
        defer { fixture.remove() }
        let channel = SlowAppChannel(slowApp: "com.example.slow", delay: .seconds(3))
        let engine = SchedulerEngine(store: fixture.store, channel: channel, clock: fixture.clock)
        try await engine.load()
        await engine.arm([try await fixture.schedule("slow", app: "com.example.slow", in: 10),
                          try await fixture.schedule("fast", app: "com.example.fast", in: 11)])
        let running = Task { try await engine.run() }
        defer { running.cancel() }

        fixture.clock.advance(to: TwoAppFixture.start.addingTimeInterval(10))
        #expect(await pollUntil(interval: .milliseconds(5)) { channel.arrival("slow") != nil })
        let fastDue = ContinuousClock.now
        fixture.clock.advance(to: TwoAppFixture.start.addingTimeInterval(11))
        #expect(await pollUntil(interval: .milliseconds(5)) { channel.isFinished("fast") })
        let lateness = try #require(channel.arrival("fast")) - fastDue
        #expect(lateness < .seconds(1), "round \(round): the fast app waited \(lateness) behind the slow one")
        #expect(!channel.isFinished("slow"), "the slow delivery should still be in flight")
        #expect(await pollUntil(interval: .milliseconds(5)) { (try? await fixture.outcomes(app: "com.example.fast")) == ["recorded"] })
    }

    @Test("A stop lets deliveries in flight finish and stores their outcomes; nothing stays pending")
    func stopDrainsAndStores() async throws {
        let fixture = try await TwoAppFixture()
        defer { fixture.remove() }
        let channel = SlowAppChannel(slowApp: "com.example.slow", delay: .milliseconds(300))
        let dispatcher = DeliveryDispatcher(store: fixture.store, channel: channel,
                                            configuration: .init(drain: .seconds(5)))
        let engine = SchedulerEngine(store: fixture.store, channel: channel, dispatcher: dispatcher, clock: fixture.clock)
        try await engine.load()
        for index in 0..<20 {
            await engine.arm([try await fixture.schedule("n\(index)", app: "com.example.slow", in: 10)])
        }
        let group = ServiceGroup(configuration: .init(services: [dispatcher, engine], logger: .init(label: "test")))
        let running = Task { try await group.run() }
        fixture.clock.advance(to: TwoAppFixture.start.addingTimeInterval(10))
        #expect(await pollUntil(interval: .milliseconds(5)) { channel.arrival("n0") != nil })
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(try await fixture.outcomes(app: "com.example.slow") == Array(repeating: "recorded", count: 20),
                "every delivery that was in flight at the stop has its outcome stored")
        let (unfinished, _) = try await fixture.store.unfinishedFirings()
        #expect(unfinished.isEmpty)
    }

    @Test("A firing committed but never delivered (a crash) is delivered once at the next start, with its content")
    func crashBetweenCommitAndDelivery() async throws {
        let fixture = try await TwoAppFixture()
        defer { fixture.remove() }
        _ = try await fixture.schedule("once", app: "com.example.fast", in: 10)
        let at = TwoAppFixture.start.addingTimeInterval(10)
        _ = try await fixture.store.claimDue(until: at, firedAt: at, limit: 10) { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
        }
        // The one-shot is gone from the schedule; the log alone still knows what to deliver.
        #expect(try await fixture.store.notifications(appID: "com.example.fast", deviceID: "phone").isEmpty)
        let channel = SlowAppChannel(slowApp: "none", delay: .zero)
        let engine = SchedulerEngine(store: fixture.store, channel: channel, clock: fixture.clock)
        try await engine.load()
        #expect(await engine.dispatcher.settle())
        #expect(channel.isFinished("once"))
        #expect(try await fixture.outcomes(app: "com.example.fast") == ["recorded"])
        // A second start finds nothing left to hand over.
        let again = SchedulerEngine(store: fixture.store, channel: channel, clock: fixture.clock)
        try await again.load()
        #expect(await again.dispatcher.backlog == 0)
    }
}

@Suite("Outcomes a store writes ahead")
struct OutcomesWrittenAheadTests {
    @Test("The outcome a store writes when it holds an item is the one the router reports for it")
    func heldInInboxMatchesTheRouter() {
        let router = DeliveryOutcome(.inbox, .held).completing(7)
        let store = CompletedDelivery.heldInInbox(7)
        #expect(router.deliveryID == store.deliveryID)
        #expect(router.channel == store.channel && router.outcome == store.outcome)
        #expect(router.apnsStatus == store.apnsStatus && router.apnsID == store.apnsID)
    }
}
