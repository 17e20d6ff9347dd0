import Foundation
import HeraldCore
import HeraldDelivery
import HeraldScheduler
import HeraldStorage
import HeraldTestSupport
import Synchronization
import Testing

/// A store, a manual clock and an engine over them, with one app and one device.
final class EngineFixture {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
    let directory = NSTemporaryDirectory() + "herald-engine-\(UUID().uuidString)"
    let clock = ManualClock(now: EngineFixture.start)
    let channel = CapturingChannel()
    let store: SQLiteStore
    private(set) var engine: SchedulerEngine

    init() async throws {
        store = try SQLiteStore(directory: directory)
        engine = SchedulerEngine(store: store, channel: channel, clock: clock)
        _ = try await store.saveApp(App(id: "com.example.app"))
        _ = try await store.saveDevice(Device(appID: "com.example.app", id: "phone", timeZone: "Europe/Paris"), now: clock.now())
        try await engine.load()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stores a notification firing `seconds` after the start and arms it.
    func schedule(_ id: String, in seconds: TimeInterval, repeatRule: RepeatRule? = nil) async throws {
        let at = EngineFixture.start.addingTimeInterval(seconds)
        let notification = LocalNotification(
            appID: "com.example.app", deviceID: "phone", id: id, fireDate: .instant(at), timeZone: .absolute,
            repeatRule: repeatRule, content: NotificationContent(alert: .init(body: id)), nextIndex: 0, nextFireDate: at)
        let result = try await store.schedule(notification, now: clock.now())
        if let armed = result.armed { await engine.arm([armed]) }
    }

    /// A new engine on the same store, as after a restart of the process.
    func restart() async throws {
        engine = SchedulerEngine(store: store, channel: channel, clock: clock)
        try await engine.load()
    }

    func advance(to seconds: TimeInterval) {
        clock.advance(to: EngineFixture.start.addingTimeInterval(seconds))
    }

    func pending() async throws -> [LocalNotification] {
        try await store.notifications(appID: "com.example.app", deviceID: "phone")
    }

    func deliveries() async throws -> [Delivery] {
        try await store.deliveries(appID: "com.example.app", deviceID: "phone", limit: 1000)
    }
}

@Suite("Scheduler engine")
struct SchedulerEngineTests {
    @Test("An occurrence fires at its instant, not before, and only once")
    func firesOnceOnTime() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("a", in: 10)
        fixture.advance(to: 9.99)
        #expect(await fixture.engine.fireDueBatch() == 0)
        fixture.advance(to: 10)
        #expect(await fixture.engine.fireDueBatch() == 1)
        #expect(await fixture.engine.fireDueBatch() == 0)
        #expect(fixture.channel.occurrences.map(\.id) == ["a#0"])
        #expect(try await fixture.pending().isEmpty)
    }

    @Test("Occurrences due within the batch window are claimed together, and each is handed over at its instant, never before")
    func batchWindow() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("a", in: 10.000)
        try await fixture.schedule("b", in: 10.001)
        try await fixture.schedule("c", in: 10.002)
        try await fixture.schedule("d", in: 10.010)
        fixture.advance(to: 10)
        let engine = fixture.engine
        let running = Task { try await engine.run() }
        defer { running.cancel() }
        // Each hand-over to the dispatcher is counted in the lateness chart as it happens.
        func handedOver() -> Int { engine.lateness.buckets.reduce(0, +) }
        #expect(await pollUntil { handedOver() == 1 }, "a is due: handed over at once")
        #expect(try await fixture.pending().map(\.id) == ["d"], "b and c are claimed with a")
        try await Task.sleep(for: .milliseconds(100))
        #expect(handedOver() == 1, "b and c are held: the clock has not reached their instants")
        // Past each instant by half a millisecond: the manual clock's seconds and the store's
        // milliseconds need not round alike.
        fixture.advance(to: 10.0015)
        #expect(await pollUntil { handedOver() == 2 })
        fixture.advance(to: 10.0025)
        #expect(await pollUntil { handedOver() == 3 })
        let deliveries = try await fixture.deliveries()
        #expect(Set(deliveries.map(\.notificationID)) == ["a", "b", "c"])
        #expect(deliveries.allSatisfy { $0.firedAt >= $0.scheduledFor }, "the fire log says when each was handed over")
    }

    @Test("A fired batch is recorded: deliveries with their outcome, one-shots removed, repeating ones advanced")
    func batchRecorded() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("once", in: 10)
        try await fixture.schedule("hourly", in: 10, repeatRule: RepeatRule(unit: .hour))
        fixture.advance(to: 10)
        #expect(await fixture.engine.fireDueBatch() == 2)
        let deliveries = try await fixture.deliveries()
        #expect(Set(deliveries.map(\.occurrenceID)) == ["once#0", "hourly#0"])
        #expect(deliveries.allSatisfy { $0.channel == .recorded && $0.outcome == .recorded && !$0.late && $0.missed == 0 })
        let pending = try await fixture.pending()
        #expect(pending.map(\.id) == ["hourly"])
        #expect(pending.first?.nextIndex == 1)
        #expect(pending.first?.nextFireDate == EngineFixture.start.addingTimeInterval(3610))
    }

    @Test("A repeating notification fires each occurrence in turn with its own stable id")
    func repeatingSeries() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("tick", in: 60, repeatRule: RepeatRule(unit: .minute, end: .count(3)))
        for minute in 1...4 {
            fixture.advance(to: Double(minute) * 60)
            await fixture.engine.fireDueBatch()
        }
        #expect(fixture.channel.occurrences.map(\.id) == ["tick#0", "tick#1", "tick#2"])
        #expect(try await fixture.pending().isEmpty)
    }

    @Test("After downtime a past-due one-shot fires once, marked late")
    func pastDueAfterDowntime() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("a", in: 10)
        fixture.advance(to: 3600)
        try await fixture.restart()
        #expect(await fixture.engine.fireDueBatch() == 1)
        #expect(await fixture.engine.fireDueBatch() == 0)
        let delivery = try #require(try await fixture.deliveries().first)
        #expect(delivery.late && delivery.missed == 0)
        #expect(delivery.scheduledFor == EngineFixture.start.addingTimeInterval(10))
    }

    @Test("After downtime a repeating notification fires once with missed: N, then resumes at its next future occurrence")
    func missedAfterDowntime() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("tick", in: 60, repeatRule: RepeatRule(unit: .minute))
        fixture.advance(to: 60 * 10 + 30)  // occurrences 0...9 passed while down
        try await fixture.restart()
        #expect(await fixture.engine.fireDueBatch() == 1)
        let occurrence = try #require(fixture.channel.occurrences.first)
        #expect(occurrence.index == 9 && occurrence.missed == 9 && occurrence.late)
        let next = try #require(try await fixture.pending().first)
        #expect(next.nextIndex == 10)
        #expect(next.nextFireDate == EngineFixture.start.addingTimeInterval(660))
    }

    @Test("A cancelled notification does not fire")
    func cancelledDoesNotFire() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("a", in: 10)
        _ = try await fixture.store.cancel(appID: "com.example.app", deviceID: "phone", id: "a")
        fixture.advance(to: 20)
        #expect(await fixture.engine.fireDueBatch() == 0)
        #expect(fixture.channel.occurrences.isEmpty)
    }

    @Test("A replaced notification fires at its new time only")
    func replacedFiresAtNewTime() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("a", in: 10)
        try await fixture.schedule("a", in: 20)
        fixture.advance(to: 10)
        #expect(await fixture.engine.fireDueBatch() == 0)
        fixture.advance(to: 20)
        #expect(await fixture.engine.fireDueBatch() == 1)
        #expect(fixture.channel.occurrences.map(\.scheduledFor) == [EngineFixture.start.addingTimeInterval(20)])
    }

    @Test("The timer sleeps until the next fire instant and wakes early when a sooner one arrives")
    func sleepsAndWakesEarly() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("later", in: 100)
        let engine = fixture.engine
        let running = Task { try await engine.run() }
        defer { running.cancel() }
        try await fixture.schedule("sooner", in: 5)
        fixture.advance(to: 5)
        #expect(await pollUntil(interval: .milliseconds(5)) { fixture.channel.occurrences.count == 1 })
        #expect(fixture.channel.occurrences.map(\.notificationID) == ["sooner"])
        fixture.advance(to: 100)
        #expect(await pollUntil(interval: .milliseconds(5)) { fixture.channel.occurrences.count == 2 })
        #expect(fixture.channel.occurrences.map(\.notificationID) == ["sooner", "later"])
    }

    @Test("Deliveries a crash left pending are delivered at the next start")
    func pendingRedeliveredAtStart() async throws {
        let fixture = try await EngineFixture()
        try await fixture.schedule("a", in: 10, repeatRule: RepeatRule(unit: .day))
        // A firing committed to the fire log, as if the process died before the dispatcher ran.
        let at = EngineFixture.start.addingTimeInterval(10)
        let claim = try await fixture.store.claimDue(until: at, firedAt: at, limit: 10) { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
        }
        try #require(claim.fired.count == 1)
        #expect(fixture.channel.occurrences.isEmpty)
        try await fixture.restart()
        #expect(await fixture.engine.dispatcher.settle())
        #expect(fixture.channel.occurrences.map(\.id) == ["a#0"])
        #expect(try await fixture.deliveries().map(\.outcome) == [.recorded])
    }

    @Test("Present delivers at once and records the delivery without storing a notification")
    func presentNow() async throws {
        let fixture = try await EngineFixture()
        let device = try #require(try await fixture.store.device(appID: "com.example.app", id: "phone"))
        let delivery = try await fixture.engine.present(NotificationContent(alert: .init(body: "now")),
                                                        notificationID: "now", device: device)
        #expect(delivery.outcome == .recorded)
        #expect(try await fixture.deliveries().map(\.occurrenceID) == ["now#0"])
        #expect(try await fixture.pending().isEmpty)
    }
}
