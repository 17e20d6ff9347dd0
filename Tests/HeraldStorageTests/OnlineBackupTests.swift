import Foundation
import GRDB
import HeraldCore
@testable import HeraldStorage
import Synchronization
import Testing

// Online backup: `herald backup` copies the SQLite store with SQLite's online backup API while
// the server keeps writing. The copy is one consistent snapshot that passes integrity_check, and
// writers are never held behind it.

@Suite("SQLite online backup")
struct OnlineBackupTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A store with `devices` devices of `perDevice` notifications each: enough pages to copy in steps.
    func filled(devices: Int, perDevice: Int) async throws -> TemporaryStore {
        let temporary = try TemporaryStore()
        _ = try await temporary.store.saveApp(App(id: "com.example.app"))
        for device in 0..<devices {
            _ = try await temporary.store.saveDevice(Device(appID: "com.example.app", id: "d\(device)", timeZone: "UTC"), now: now)
            for index in 0..<perDevice {
                _ = try await temporary.store.schedule(sampleNotification("n\(index)", at: now.addingTimeInterval(Double(60 + index)),
                                                                          device: "d\(device)", body: String(repeating: "x", count: 200)),
                                                       now: now)
            }
        }
        return temporary
    }

    @Test("A backup is a copy that passes integrity_check and opens as a store holding every notification stored before it")
    func backupIsACheckedCopy() async throws {
        let temporary = try await filled(devices: 3, perDevice: 20)
        let destination = temporary.directory + "/backup.sqlite"
        let report = try await temporary.store.backup(to: destination)
        #expect(report.path == destination)
        #expect(report.bytes > 0 && report.pages > 0)
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
        let copy = try SQLiteStore(path: destination)
        for device in 0..<3 {
            #expect(try await copy.notifications(appID: "com.example.app", deviceID: "d\(device)").count == 20)
        }
        let verdict = try await DatabaseQueue(path: destination).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        #expect(verdict == ["ok"])
    }

    @Test("A write commits while a backup is half-way through its copy, and the copy is the snapshot from before that write")
    func writersAreNotBlocked() async throws {
        let temporary = try await filled(devices: 4, perDevice: 40)
        let store = temporary.store
        let destination = temporary.directory + "/half-way.sqlite"
        let paused = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let pausedOnce = Mutex(false)
        let backup = Task {
            try await store.backup(to: destination, pagesPerStep: 4) { remaining in
                // Pause once, with pages still to copy, until the write below has committed.
                guard remaining > 0, pausedOnce.withLock({ paused in defer { paused = true }; return !paused }) else { return }
                paused.signal()
                resume.wait()
            }
        }
        await Task.detached { paused.wait() }.value
        // The backup holds its read snapshot open right now; a write must still commit.
        _ = try await store.schedule(sampleNotification("during", at: now.addingTimeInterval(30), device: "d0"), now: now)
        #expect(try await store.notification(appID: "com.example.app", deviceID: "d0", id: "during") != nil)
        resume.signal()
        _ = try await backup.value
        let copy = try SQLiteStore(path: destination)
        #expect(try await copy.notification(appID: "com.example.app", deviceID: "d0", id: "during") == nil)
        #expect(try await copy.notifications(appID: "com.example.app", deviceID: "d0").count == 40)
    }

    @Test("A backup never overwrites a file and refuses a directory that does not exist; neither leaves a file behind")
    func refusedDestinations() async throws {
        let temporary = try await filled(devices: 1, perDevice: 1)
        let existing = temporary.directory + "/exists.sqlite"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        await #expect(throws: HeraldError.self) { try await temporary.store.backup(to: existing) }
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        let missing = temporary.directory + "/no/such/dir/copy.sqlite"
        do {
            _ = try await temporary.store.backup(to: missing)
            Issue.record("a backup into a missing directory succeeded")
        } catch let error as HeraldError {
            #expect(error.reason == .invalidBackupDestination)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
