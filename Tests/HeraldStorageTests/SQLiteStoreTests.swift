import Foundation
import HeraldCore
import HeraldStorage
import HeraldTestSupport
import Testing

/// A store in a fresh temporary directory, removed when the test ends.
final class TemporaryStore {
    let directory: String
    private(set) var store: SQLiteStore

    /// - Parameter writeCounter: counts the store's writes, for tests of what a call writes.
    init(writeCounter: SQLiteWriteCounter? = nil) throws {
        directory = NSTemporaryDirectory() + "herald-store-\(UUID().uuidString)"
        store = try SQLiteStore(directory: directory, writeCounter: writeCounter)
    }

    /// Closes and reopens the same file, as a restart does.
    func reopen() throws {
        store = try SQLiteStore(directory: directory)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

func sampleNotification(_ id: String, at date: Date, device: String = "phone", zone: FireTimeZone = .absolute,
                        repeatRule: RepeatRule? = nil, body: String = "hello") -> LocalNotification {
    let fireDate: FireDate
    switch zone {
    case .absolute: fireDate = .instant(date)
    case .fixed, .floating: fireDate = .wallClock(WallClock.localTime(at: date, in: .gmt))
    }
    return LocalNotification(appID: "com.example.app", deviceID: device, id: id, fireDate: fireDate, timeZone: zone,
                             repeatRule: repeatRule, content: NotificationContent(alert: .init(body: body)),
                             nextIndex: 0, nextFireDate: date)
}

@Suite("SQLite store")
struct SQLiteStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func prepared(overflow: OverflowPolicy = .reject, writeCounter: SQLiteWriteCounter? = nil) async throws -> TemporaryStore {
        let temporary = try TemporaryStore(writeCounter: writeCounter)
        _ = try await temporary.store.saveApp(App(id: "com.example.app", overflow: overflow))
        _ = try await temporary.store.saveDevice(Device(appID: "com.example.app", id: "phone", timeZone: "UTC"), now: now)
        return temporary
    }

    @Test("What a method returned from is durable: it is there after reopening the file")
    func durableAcrossReopen() async throws {
        let temporary = try await prepared()
        _ = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(60)), now: now)
        try temporary.reopen()
        let stored = try await temporary.store.notifications(appID: "com.example.app", deviceID: "phone")
        #expect(stored.map(\.id) == ["a"])
        #expect(stored.first?.nextFireDate == now.addingTimeInterval(60))
    }

    @Test("The database file runs in WAL mode")
    func walMode() async throws {
        let temporary = try await prepared()
        #expect(FileManager.default.fileExists(atPath: temporary.directory + "/herald.sqlite-wal"))
    }

    @Test("storage.synchronous reaches the writer connection: normal is 1, full is 2")
    func synchronousSetting() throws {
        let normal = try TemporaryStore()
        #expect(try normal.store.synchronousSetting() == 1)
        let directory = NSTemporaryDirectory() + "herald-full-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try SQLiteStore(directory: directory, synchronous: .full).synchronousSetting() == 2)
    }

    @Test("Notifications list soonest first")
    func listSorted() async throws {
        let temporary = try await prepared()
        for (id, offset) in [("late", 300.0), ("early", 60.0), ("middle", 120.0)] {
            _ = try await temporary.store.schedule(sampleNotification(id, at: now.addingTimeInterval(offset)), now: now)
        }
        #expect(try await temporary.store.notifications(appID: "com.example.app", deviceID: "phone").map(\.id)
            == ["early", "middle", "late"])
    }

    @Test("The 129th notification is refused and the stored 128 do not change")
    func limitLeavesStoreUnchanged() async throws {
        let temporary = try await prepared()
        for index in 0..<128 {
            _ = try await temporary.store.schedule(sampleNotification("n\(index)", at: now.addingTimeInterval(Double(index + 1))), now: now)
        }
        let before = try await temporary.store.notifications(appID: "com.example.app", deviceID: "phone")
        await #expect(throws: HeraldError.self) {
            _ = try await temporary.store.schedule(sampleNotification("extra", at: now.addingTimeInterval(0.5)), now: now)
        }
        #expect(try await temporary.store.notifications(appID: "com.example.app", deviceID: "phone") == before)
    }

    @Test("Scheduling the same id again replaces it")
    func sameIDReplaces() async throws {
        let temporary = try await prepared()
        _ = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(60), body: "one"), now: now)
        let result = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(90), body: "two"), now: now)
        #expect(result.replaced)
        let stored = try await temporary.store.notifications(appID: "com.example.app", deviceID: "phone")
        #expect(stored.count == 1 && stored[0].content.alert?.body == "two")
    }

    @Test("A replace committed before a claim is what the claim sees: the old schedule does not fire")
    func replaceBeforeClaimWins() async throws {
        let temporary = try await prepared()
        _ = try await temporary.store.schedule(
            sampleNotification("a", at: now.addingTimeInterval(60), repeatRule: RepeatRule(unit: .hour)), now: now)
        _ = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(999)), now: now)
        let at = now.addingTimeInterval(60)
        let claim = try await temporary.store.claimDue(until: at, firedAt: at, limit: 100) { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
        }
        #expect(claim.fired.isEmpty)
        let stored = try await temporary.store.notification(appID: "com.example.app", deviceID: "phone", id: "a")
        #expect(stored?.nextFireDate == now.addingTimeInterval(999))
    }

    @Test("A claim fires each occurrence once: a second claim of the same instant finds it advanced")
    func claimFiresOnce() async throws {
        let temporary = try await prepared()
        _ = try await temporary.store.schedule(
            sampleNotification("a", at: now.addingTimeInterval(60), repeatRule: RepeatRule(unit: .hour)), now: now)
        let at = now.addingTimeInterval(60)
        let decide: @Sendable (DueNotification) -> FiringDecision = { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
        }
        let first = try await temporary.store.claimDue(until: at, firedAt: at, limit: 100, decide: decide)
        let second = try await temporary.store.claimDue(until: at, firedAt: at, limit: 100, decide: decide)
        #expect(first.fired.map(\.occurrence.id) == ["a#0"])
        #expect(first.fired.first?.logID != nil)
        #expect(first.armed.map(\.fireAt) == [now.addingTimeInterval(3660).millisecondsSince1970])
        #expect(second.fired.isEmpty)
        let (unfinished, orphaned) = try await temporary.store.unfinishedFirings()
        #expect(unfinished.map(\.occurrence.id) == ["a#0"], "the firing waits in the log with its content")
        #expect(try unfinished.first?.content().alert?.body == first.fired.first?.content().alert?.body)
        #expect(orphaned.isEmpty)
    }

    @Test("A stored instant that is early never deletes: the notification is re-armed at its real instant")
    func notYetDueRearms() async throws {
        let temporary = try await prepared()
        let result = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(60)), now: now)
        let at = now.addingTimeInterval(30)
        let claim = try await temporary.store.claimDue(until: now.addingTimeInterval(60), firedAt: at, limit: 100) { _ in
            .notYetDue(FiringPlan.Next(index: 0, date: at.addingTimeInterval(45)))
        }
        #expect(claim.fired.isEmpty)
        #expect(claim.armed == [TimerEntry(fireAt: at.addingTimeInterval(45).millisecondsSince1970, key: result.armed!.key)])
        let stored = try await temporary.store.notification(appID: "com.example.app", deviceID: "phone", id: "a")
        #expect(stored?.nextFireDate == at.addingTimeInterval(45))
    }

    @Test("Flying west never moves a floating notification back to an occurrence that already fired")
    func retimeNeverMovesBack() async throws {
        let temporary = try TemporaryStore()
        _ = try await temporary.store.saveApp(App(id: "com.example.app"))
        let tokyo = Device(appID: "com.example.app", id: "phone", timeZone: "Asia/Tokyo")
        _ = try await temporary.store.saveDevice(tokyo, now: now)
        // Daily at 08:00 on the device's clock, from Dec 1; index 0 (Dec 1 08:00 Tokyo, Nov 30 23:00Z) fired.
        let local = LocalDateTime(parsing: "2026-12-01T08:00:00")!
        let firstFire = WallClock.instant(of: local, in: TimeZone(identifier: "Asia/Tokyo")!)
        let notification = LocalNotification(
            appID: "com.example.app", deviceID: "phone", id: "daily", fireDate: .wallClock(local), timeZone: .floating,
            repeatRule: RepeatRule(unit: .day), content: NotificationContent(alert: .init(body: "hi")),
            nextIndex: 0, nextFireDate: firstFire)
        _ = try await temporary.store.schedule(notification, now: now)
        let claimAt = firstFire
        let claim = try await temporary.store.claimDue(until: claimAt, firedAt: claimAt, limit: 10) { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "Asia/Tokyo")!, now: claimAt,
                                  lateAfter: 1)
        }
        #expect(claim.fired.map(\.occurrence.id) == ["daily#0"])
        // An hour later the device lands in New York, where Dec 1 08:00 is still ahead.
        var newYork = tokyo
        newYork.timeZone = "America/New_York"
        _ = try await temporary.store.saveDevice(newYork, now: claimAt.addingTimeInterval(3600))
        let stored = try #require(try await temporary.store.notification(appID: "com.example.app", deviceID: "phone", id: "daily"))
        #expect(stored.nextIndex == 1, "index 0 already fired; re-timing must not bring it back")
        #expect(stored.nextFireDate == WallClock.instant(of: LocalDateTime(parsing: "2026-12-02T08:00:00")!,
                                                         in: TimeZone(identifier: "America/New_York")!))
    }

    @Test("A floating notification's wall-clock until is stored as wall-clock and read back unchanged")
    func floatingUntilRoundTrips() async throws {
        let temporary = try await prepared()
        let until = LocalDateTime(parsing: "2026-12-24T09:00:00")!
        let rule = RepeatRule(unit: .day, end: .untilWallClock(until))
        _ = try await temporary.store.schedule(sampleNotification("f", at: now.addingTimeInterval(60), zone: .floating,
                                                                  repeatRule: rule), now: now)
        try temporary.reopen()
        let stored = try await temporary.store.notification(appID: "com.example.app", deviceID: "phone", id: "f")
        #expect(stored?.repeatRule?.end == .untilWallClock(until))
    }

    @Test("A device time-zone change re-times its floating notifications, not its fixed-zone ones")
    func zoneChangeRetimesFloating() async throws {
        let temporary = try await prepared()
        let at = now.addingTimeInterval(86_400)
        _ = try await temporary.store.schedule(sampleNotification("floating", at: at, zone: .floating), now: now)
        _ = try await temporary.store.schedule(sampleNotification("fixed", at: at, zone: .fixed("UTC")), now: now)
        let result = try await temporary.store.saveDevice(
            Device(appID: "com.example.app", id: "phone", timeZone: "Asia/Tokyo"), now: now)
        #expect(result.rearmed.count == 1)
        let floating = try await temporary.store.notification(appID: "com.example.app", deviceID: "phone", id: "floating")
        let fixed = try await temporary.store.notification(appID: "com.example.app", deviceID: "phone", id: "fixed")
        #expect(floating?.nextFireDate == at.addingTimeInterval(-9 * 3600))
        #expect(fixed?.nextFireDate == at)
    }

    @Test("Deleting a device deletes its notifications")
    func deleteDeviceCascades() async throws {
        let temporary = try await prepared()
        _ = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(60)), now: now)
        #expect(try await temporary.store.deleteDevice(appID: "com.example.app", id: "phone"))
        #expect(try await temporary.store.timerEntries().isEmpty)
    }

    @Test("Scheduling for an unknown device is refused with deviceNotFound")
    func unknownDevice() async throws {
        let temporary = try await prepared()
        await #expect(throws: HeraldError.deviceNotFound(appID: "com.example.app", deviceID: "ghost")) {
            _ = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(60), device: "ghost"), now: now)
        }
    }

    @Test("Holding a firing in its inbox stores its outcome in the same write: nothing is left pending, and storing it again writes nothing")
    func holdStoresOutcome() async throws {
        let counter = SQLiteWriteCounter()
        let temporary = try await prepared(writeCounter: counter)
        let store = temporary.store
        let fixtures = StoreFixtures(app: "com.example.app", start: now)
        _ = try await store.schedule(fixtures.oneShot("a", device: "phone", at: 60), now: now)
        let fired = try await fixtures.claimAll(store, at: 60)
        let logID = try #require(fired.first?.logID)
        _ = try await store.holdInInbox([InboxItem(logID: logID, occurrence: fired[0].occurrence, content: try fired[0].content(),
                                               firedAt: fired[0].firedAt)])
        #expect(try await store.unfinishedFirings().fired.isEmpty, "held is its outcome")
        #expect(try await store.deliveries(appID: "com.example.app", deviceID: "phone", limit: 10).map(\.outcome) == [.held])
        counter.reset()
        try await store.completeDeliveries([CompletedDelivery.heldInInbox(logID)])
        #expect(counter.counts.rowsByTable["delivery", default: 0] == 0)
    }

    @Test("SQLite's claim holds a due firing its rule takes in the inbox: one fire-log row, written once")
    func claimHoldWritesOneRow() async throws {
        let counter = SQLiteWriteCounter()
        let temporary = try await prepared(writeCounter: counter)
        let store = temporary.store
        _ = try await store.schedule(StoreFixtures(app: "com.example.app", start: now).oneShot("due", device: "phone", at: 60),
                                     now: now)
        let at = now.addingTimeInterval(60)
        counter.reset()
        let claim = try await store.claimDue(until: at, firedAt: at, limit: 10, holding: InboxOnlyRule { _, _ in true }) { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
        }
        #expect(claim.heldInInbox.map(\.occurrence.id) == ["due#0"] && claim.fired.isEmpty)
        #expect(counter.counts.rowsByTable == ["delivery": 1, "notification": 1, "hand_over_sequence": 1])
    }
}
