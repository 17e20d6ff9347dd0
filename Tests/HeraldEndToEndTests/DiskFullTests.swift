import Foundation
import HeraldTestSupport
import Testing

private let app = "com.example.diskfull"
private let devices = (0..<10).map { "phone-\($0)" }

/// Runs a system command to completion (through SpawnedProcess, as every child of the tests);
/// throws when it fails.
private func system(_ executable: String, _ arguments: [String]) throws {
    let process = SpawnedProcess()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw EndToEndFailure("\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
}

/// Writes zeros to `file` until the disk refuses more.
private func fillDisk(with file: URL) throws {
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    let handle = try FileHandle(forWritingTo: file)
    defer { try? handle.close() }
    let chunk = Data(count: 64 * 1024)
    while (try? handle.write(contentsOf: chunk)) != nil {}
    // The last partial chunk: fill what a whole one could not.
    while (try? handle.write(contentsOf: Data(count: 512))) != nil {}
}

@Suite("A full disk", .serialized)
struct DiskFullTests {
    /// The data directory is a 4 MiB tmpfs, filled up by the test: a real full disk, not a
    /// simulated one. Mounting needs root, as CI has.
    @Test("With the disk full, writes answer 503 storageFull with Retry-After and change nothing; /readyz and the log say why; writes resume once space is back, and everything accepted stays")
    func fullDisk() async throws {
        try #require(geteuid() == 0, "this test mounts a small tmpfs for the data directory, which needs root")
        try await withScratch { scratch in
            let disk = scratch.file("small-disk")
            try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
            try system("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", disk.path])
            defer { try? system("/bin/umount", ["-l", disk.path]) }
            let arguments = ["--listen", "127.0.0.1:0", "--data-dir", disk.appendingPathComponent("data").path]

            let server = try await ServerProcess.start(arguments: arguments, in: scratch)
            var accepted: Set<String> = []
            do {
                try #require(try await http("PUT", "\(server.baseURL)/v1/apps/\(app)", json: [:]).status == 201)
                for device in devices {
                    try #require(try await http("PUT", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)",
                                                json: ["timeZone": "Europe/Paris"]).status == 201)
                }
                // Accepted before the disk fills: these must survive what follows.
                for device in devices {
                    let reply = try await http("POST", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)/notifications",
                                               json: ["id": "before", "fireDate": "2099-01-01T00:00:00Z", "alert": ["body": "kept"]])
                    try #require(reply.status == 201)
                    accepted.insert("\(device)/before")
                }
                let filler = disk.appendingPathComponent("filler")
                try fillDisk(with: filler)

                // Large bodies, so that the write-ahead log must grow past what it already has.
                let text = String(repeating: "x", count: 2_000)
                var refusals: [HTTPReply] = []
                var unexpected: [String] = []
                for index in 0..<1_200 where refusals.count < 5 {
                    let device = devices[index % devices.count]
                    let reply = try await http("POST", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)/notifications",
                                               json: ["id": "n\(index)", "fireDate": "2099-01-01T00:00:00Z", "alert": ["body": text]])
                    switch reply.status {
                    case 201: accepted.insert("\(device)/n\(index)")
                    case 503: refusals.append(reply)
                    default: unexpected.append("\(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
                    }
                }
                #expect(unexpected.isEmpty, "every answer is 201 or 503: \(unexpected.prefix(3))")
                let refusal = try #require(refusals.first, "the disk never filled after \(accepted.count) schedules")
                #expect(refusal.json.object("error")?.string("reason") == "storageFull", "\(refusal.json.raw)")
                #expect(refusal.json.object("error")?.string("message")?.contains("disk is full") == true)
                #expect(refusal.headers["retry-after"] != nil, "a 503 says when to try again")

                let unready = try await http("GET", "\(server.baseURL)/readyz")
                #expect(unready.status == 503)
                #expect(unready.json.string("problems")?.contains("disk is full") == true, "\(unready.json.raw)")
                let log = server.child.stdout + server.child.stderr
                #expect(log.contains("the disk is full") && log.contains("POST /v1/apps/\(app)/devices/"),
                        "the log names the refused call")

                // Space comes back: the next write succeeds without a restart, and the node is ready again.
                try FileManager.default.removeItem(at: filler)
                let resumed = try await eventually(timeout: .seconds(10), interval: .milliseconds(100)) { () -> Bool? in
                    let reply = try await http("POST", "\(server.baseURL)/v1/apps/\(app)/devices/\(devices[0])/notifications",
                                               json: ["id": "after", "fireDate": "2099-01-01T00:00:00Z", "alert": ["body": "back"]])
                    return reply.status == 201 ? true : nil
                }
                #expect(resumed == true, "writes resume by themselves once space is back")
                accepted.insert("\(devices[0])/after")
                let ready = try await http("GET", "\(server.baseURL)/readyz")
                #expect(ready.status == 200, "\(ready.json.raw)")
                try await server.crash()
            } catch {
                await server.stop()
                throw error
            }

            // Everything answered 201 survives kill -9, and nothing refused was stored.
            let restarted = try await ServerProcess.start(arguments: arguments, in: scratch)
            do {
                var stored: Set<String> = []
                for device in devices {
                    let list = try await http("GET", "\(restarted.baseURL)/v1/apps/\(app)/devices/\(device)/notifications?limit=1000")
                    for notification in list.json.objects("notifications") {
                        stored.insert("\(device)/\(notification.string("id") ?? "?")")
                    }
                }
                #expect(stored == accepted, "missing: \(accepted.subtracting(stored).sorted().prefix(5)); unexpected: \(stored.subtracting(accepted).sorted().prefix(5))")
                await restarted.stop()
            } catch {
                await restarted.stop()
                throw error
            }
        }
    }
}
