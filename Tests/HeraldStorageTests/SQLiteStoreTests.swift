import Foundation
import HeraldCore
import HeraldStorage
import Testing

/// A store in a fresh temporary directory, removed when the test ends.
final class TemporaryStore {
    let directory: String
    private(set) var store: SQLiteStore

    init() throws {
        directory = NSTemporaryDirectory() + "herald-store-\(UUID().uuidString)"
        store = try SQLiteStore(directory: directory)
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

    func prepared(overflow: OverflowPolicy = .reject) async throws -> TemporaryStore {
        let temporary = try TemporaryStore()
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
        #expect(stored.count == 1 && stored[0].content.alert.body == "two")
    }

    @Test("A replace made while a batch was firing wins over the batch's advance")
    func replaceWinsOverAdvance() async throws {
        let temporary = try await prepared()
        let first = try await temporary.store.schedule(
            sampleNotification("a", at: now.addingTimeInterval(60), repeatRule: RepeatRule(unit: .hour)), now: now)
        let due = try await temporary.store.dueNotifications(keys: [first.armed!.key])
        _ = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(999)), now: now)
        let commit = try await temporary.store.commitFiring(FiringBatch(deliveries: [], advances: [
            .init(key: due[0].key, revision: due[0].revision, next: .init(index: 1, date: now.addingTimeInterval(3660))),
        ]))
        #expect(commit.armed.isEmpty)
        let stored = try await temporary.store.notification(appID: "com.example.app", deviceID: "phone", id: "a")
        #expect(stored?.nextFireDate == now.addingTimeInterval(999))
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
        await #expect(throws: HeraldError.notFound("deviceNotFound", "device 'ghost' does not exist")) {
            _ = try await temporary.store.schedule(sampleNotification("a", at: now.addingTimeInterval(60), device: "ghost"), now: now)
        }
    }
}
