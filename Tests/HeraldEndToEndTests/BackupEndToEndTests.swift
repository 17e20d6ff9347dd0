import Foundation
import HeraldTestSupport
import Synchronization
import Testing

// Online backup through the real binary: `herald backup --to FILE` while clients keep scheduling.
// The copy must open, pass integrity_check, and serve every notification acknowledged (201)
// before the backup began.

private let app = "com.example.backup"
private let devices = (0..<10).map { "phone-\($0)" }

/// `PRAGMA integrity_check` of a SQLite file, by Python's sqlite3 (not by Herald's own code).
private func integrityCheck(_ path: String) throws -> String {
    let process = SpawnedProcess()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c",
                         "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])", path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    process.waitUntilExit()
    return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

/// What the writers were answered 201 for, and whether they should stop.
private final class WriteLoad: Sendable {
    let acknowledged = Mutex<Set<String>>([])
    let stopped = Mutex(false)
}

/// Every pending notification id of every device, walking the pages.
private func storedNotifications(on server: ServerProcess) async throws -> Set<String> {
    var ids: Set<String> = []
    for device in devices {
        var cursor: String?
        repeat {
            let query = "?limit=50" + (cursor.map { "&cursor=\($0)" } ?? "")
            let reply = try await http("GET", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)/notifications\(query)")
            try #require(reply.status == 200)
            ids.formUnion(reply.json.objects("items").compactMap { $0.string("id").map { "\(device)/\($0)" } })
            cursor = reply.json.string("nextCursor")
        } while cursor != nil
    }
    return ids
}

@Suite("Online backup, end to end")
struct BackupEndToEndTests {
    @Test("herald backup under write load yields a copy that passes integrity_check and serves every notification acknowledged before it")
    func backupUnderWriteLoad() async throws {
        try await withScratch { scratch in
            let copy = scratch.file("copy.sqlite").path
            let acknowledgedBefore: Set<String> = try await withServer(in: scratch) { server in
                _ = try await http("PUT", "\(server.baseURL)/v1/apps/\(app)", json: [:])
                for device in devices {
                    _ = try await http("PUT", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)", json: ["timeZone": "UTC"])
                }
                let load = WriteLoad()
                let fireDate = utc(Date().addingTimeInterval(86_400))
                // Four clients schedule until told to stop, each round robin over the devices.
                let writers = Task { [load] in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for writer in 0..<4 {
                            group.addTask {
                                var index = 0
                                while !load.stopped.withLock({ $0 }), index < 300 {
                                    let device = devices[(writer * 300 + index) % devices.count]
                                    let id = "w\(writer)-\(index)"
                                    let reply = try await http("POST", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)/notifications",
                                                               json: ["id": id, "fireDate": fireDate, "alert": ["body": id]])
                                    if reply.status == 201 { load.acknowledged.withLock { _ = $0.insert("\(device)/\(id)") } }
                                    index += 1
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                #expect(await pollUntil(timeout: .seconds(30)) { load.acknowledged.withLock { $0.count } >= 200 })
                let before = load.acknowledged.withLock { $0 }
                let result = try await runHerald(["backup", "--to", copy, "--server", server.baseURL], in: scratch)
                load.stopped.withLock { $0 = true }
                try await writers.value
                #expect(result.status == 0, "herald backup: \(result.stdout) \(result.stderr)")
                return before
            }
            #expect(try integrityCheck(copy) == "ok")
            // A server started on the copy serves what was acknowledged before the backup began.
            let restored = scratch.file("restored").path
            try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: copy, toPath: restored + "/herald.sqlite")
            try await withServer(arguments: ["--listen", "127.0.0.1:0", "--data-dir", restored], in: scratch) { server in
                let stored = try await storedNotifications(on: server)
                let missing = acknowledgedBefore.subtracting(stored)
                #expect(missing.isEmpty, "acknowledged before the backup, missing from the copy: \(missing.sorted().prefix(10))")
            }
        }
    }

    @Test("herald backup refuses a file that exists and leaves it as it was")
    func backupNeverOverwrites() async throws {
        try await withScratch { scratch in
            let existing = scratch.file("exists.sqlite")
            try Data("keep".utf8).write(to: existing)
            try await withServer(in: scratch) { server in
                let result = try await runHerald(["backup", "--to", existing.path, "--server", server.baseURL], in: scratch)
                #expect(result.status != 0)
                #expect(result.stderr.contains("backupDestinationExists"), "\(result.stderr)")
            }
            #expect(try String(contentsOf: existing, encoding: .utf8) == "keep")
        }
    }
}
