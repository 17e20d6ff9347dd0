import Foundation
import GRDB
import HeraldCore
@testable import HeraldStorage
import HeraldTestSupport
import Testing

// "Anything the server accepted is durable before it answers", with the API's notification
// writes committed together when they arrive together.

@Suite("SQLite group commit")
struct GroupCommitTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Concurrent schedules share commits, each is stored when it returns, and one that fails changes nothing")
    func concurrentSchedulesShareCommits() async throws {
        let counter = SQLiteWriteCounter()
        let directory = NSTemporaryDirectory() + "herald-group-commit-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(directory: directory, writeCounter: counter)
        _ = try await store.saveApp(App(id: "com.example.app"))
        _ = try await store.saveDevice(Device(appID: "com.example.app", id: "d0", timeZone: "UTC"), now: Self.start)
        let fixtures = StoreFixtures(app: "com.example.app", start: Self.start)
        counter.reset()
        let calls = 60
        let results = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<calls {
                group.addTask {
                    // Every tenth goes to a device that does not exist.
                    let device = index % 10 == 9 ? "ghost" : "d0"
                    let stored = try? await store.schedule(fixtures.oneShot("n\(index)", device: device, at: 60), now: Self.start)
                    // Stored when it returned: another connection sees it.
                    let seen = try? await store.notification(appID: "com.example.app", deviceID: device, id: "n\(index)")
                    return (index, stored != nil && seen != nil)
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.filter(\.value).count == 54)
        #expect(results.allSatisfy { $0.value == ($0.key % 10 != 9) })
        #expect(try await store.notifications(appID: "com.example.app", deviceID: "d0").count == 54)
        #expect(counter.counts.transactions < calls, "\(counter.counts.transactions) commits for \(calls) schedules")
    }

    @Test("A call that throws after writing rolls back its own writes only; the calls around it commit")
    func failingCallRollsBackItsOwnWrites() async throws {
        let directory = NSTemporaryDirectory() + "herald-group-commit-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(directory: directory)
        struct Refused: Error {}
        let outcomes = await withTaskGroup(of: (String, Bool).self) { group in
            for app in ["a", "b", "c", "d"] {
                group.addTask {
                    do {
                        try await store.notificationWrites.write { db in
                            try db.execute(sql: "INSERT INTO app (id, overflow, created_at, updated_at) VALUES (?, 'reject', 0, 0)", arguments: [app])
                            if app == "b" { throw Refused() }
                        }
                        return (app, true)
                    } catch {
                        return (app, false)
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes == ["a": true, "b": false, "c": true, "d": true])
        for app in ["a", "c", "d"] { #expect(try await store.app(id: app) != nil) }
        #expect(try await store.app(id: "b") == nil, "its insert was rolled back with it")
    }
}
