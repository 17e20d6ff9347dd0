import Foundation
import HeraldTestSupport
import Testing

// "Stopping is bounded. SIGTERM ends streams with a retry hint, gives back what is claimed, and
// exits within the drain time, whatever state the store is in."

@Suite("Bounded shutdown")
struct ShutdownTests {
    static let drainMilliseconds = 2_000

    @Test("SIGTERM with 3 event streams open exits 0 within drainMs + 5 s; every stream ends with a retry hint; pending schedules fire after a restart (5 rounds)")
    func sigtermWithStreamsOpen() async throws {
        for round in 1...5 {
            try await withScratch { scratch in
                let arguments = ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory]
                let environment = ["HERALD_SHUTDOWN_DRAIN_MS": "\(Self.drainMilliseconds)"]
                let server = try await ServerProcess.start(arguments: arguments, environment: environment, in: scratch)
                let device = "\(server.baseURL)/v1/apps/\(LifecycleTarget.app)/devices/\(LifecycleTarget.device)"
                #expect(try await http("PUT", "\(server.baseURL)/v1/apps/\(LifecycleTarget.app)", json: [:]).status == 201)
                #expect(try await http("PUT", device, json: ["timeZone": "UTC"]).status == 201)
                let due = wholeSecond(after: 6)
                let scheduled = try await http("POST", "\(device)/notifications",
                                               json: ["id": "after-restart", "fireDate": utc(due), "alert": ["body": "later"]])
                #expect(scheduled.status == 201)

                let streams = (0..<3).map { _ in EventStreamClient(url: "\(device)/events/stream") }
                defer { streams.forEach { $0.close() } }
                for stream in streams {
                    #expect(await stream.waitUntil { $0.contains { $0.comment == "connected" } }, "round \(round)")
                }

                let stopping = ContinuousClock.now
                server.child.signal(SIGTERM)
                let status = await server.child.waitForExit(timeout: .milliseconds(Self.drainMilliseconds) + .seconds(5))
                if status == nil { server.child.signal(SIGKILL) }
                #expect(status == 0, "round \(round): exit \(String(describing: status)) after \(ContinuousClock.now - stopping)\n\(server.child.stderr)")
                for stream in streams {
                    #expect(await stream.waitUntil(timeout: .seconds(2)) { _ in stream.hasEnded }, "round \(round): a stream stayed open")
                    #expect(stream.frames.last?.retry != nil, "round \(round): the stream ended without a retry hint: \(stream.frames)")
                }

                // The schedule is still there, and fires on time once a node runs again.
                let again = try await ServerProcess.start(arguments: arguments, environment: environment, in: scratch)
                defer { Task { await again.stop() } }
                let restarted = "\(again.baseURL)/v1/apps/\(LifecycleTarget.app)/devices/\(LifecycleTarget.device)"
                let fired = try await eventually(timeout: .seconds(15), interval: .milliseconds(100)) { () -> [JSONObject]? in
                    let fired = try await http("GET", "\(restarted)/deliveries").json.objects("deliveries")
                    return fired.isEmpty ? nil : fired
                } ?? []
                #expect(fired.map { $0.string("notificationId") } == ["after-restart"], "round \(round)")
                await again.stop()
            }
        }
    }

    @Test("A port already in use is a startup error, not a second server beside the first")
    func portInUse() async throws {
        try await withScratch { scratch in
            try await withServer(in: scratch) { server in
                let second = try ChildProcess(arguments: ["serve", "--listen", "127.0.0.1:\(server.port)",
                                                          "--data-dir", scratch.dataDirectory + "-second"],
                                              environment: [:], outputPrefix: scratch.file("second"))
                let status = await second.waitForExit(timeout: .seconds(20))
                if status == nil { second.signal(SIGKILL) }
                #expect(status != nil && status != 0, "a second server on port \(server.port) kept running:\n\(second.stderr)")
                #expect(second.stderr.lowercased().contains("address already in use"), "\(second.stderr)")
            }
        }
    }
}
