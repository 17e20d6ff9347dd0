import Foundation
import HeraldTestSupport
import Testing

/// The live event stream of the real `herald serve`, read by a real SSE client.
@Suite("Event stream end to end")
struct EventStreamTests {
    /// Registers the app and device through HTTP; the device starts asleep (notRunning).
    private static func register(_ server: ServerProcess) async throws {
        let app = try await http("PUT", "\(server.baseURL)/v1/apps/\(LifecycleTarget.app)", json: [:])
        try #require(app.status == 201, "\(String(decoding: app.body, as: UTF8.self))")
        let device = try await http("PUT", LifecycleTarget.path(server), json: ["timeZone": "Europe/Paris"])
        try #require(device.status == 201, "\(String(decoding: device.body, as: UTF8.self))")
    }

    private static func report(_ events: [[String: Any]], _ server: ServerProcess) async throws -> JSONObject {
        let reply = try await http("POST", "\(LifecycleTarget.path(server))/events", json: ["events": events])
        try #require(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        return reply.json
    }

    @Test("The backlog comes before anything live: queued system frames, then a live system frame, then a notification fired on time")
    func backlogBeforeLive() async throws {
        try await withScratch { scratch in
            try await withLifecycleServer(in: scratch) { server in
                try await Self.register(server)
                let queued = try await Self.report([
                    ["kind": "batteryLevel", "value": 0.5], ["kind": "orientation", "value": "landscapeLeft"],
                    ["kind": "batteryLevel", "value": 0.4], ["kind": "significantTimeChange"],
                ], server)
                #expect(queued.int("queued") == 4)
                #expect(queued.int("backlog") == 3)

                let stream = SSEClient(url: "\(LifecycleTarget.path(server))/events/stream?foreground=true")
                defer { stream.close() }
                let backlog = await stream.waitForEvents(4)
                try #require(backlog.count == 4, "the backlog arrives on connect: \(stream.frames)")
                #expect(backlog.last?.event == "handedOver", "then the event whose id acknowledges it")
                #expect(backlog.last?.json.int("backlogSeq") != nil)
                #expect(stream.status == 200)
                #expect(stream.frames.first?.comment == "connected")
                #expect(try await LifecycleTarget.state(server) == "active", "foreground=true wakes into active")

                let live = try await Self.report([["kind": "orientation", "value": "portrait"]], server)
                #expect(live.int("live") == 1)
                #expect(live.int("queued") == 0)

                let fireDate = wholeSecond(after: 1)
                let scheduled = try await http("POST", "\(LifecycleTarget.path(server))/notifications", json: [
                    "id": "standup", "fireDate": utc(fireDate), "alert": ["title": "Stand-up", "body": "In the big room"],
                ])
                try #require(scheduled.status == 201, "\(String(decoding: scheduled.body, as: UTF8.self))")

                let frames = await stream.waitForEvents(6, timeout: .seconds(5)).filter { $0.event != "handedOver" }
                try #require(frames.count == 5, "\(stream.frames)")
                #expect(frames.map(\.event) == ["system", "system", "system", "system", "notification"])
                #expect(frames[0..<4].map { netLine($0.json) } == [
                    netLine(kind: "orientation", value: "landscapeLeft"),
                    netLine(kind: "significantTimeChange"),
                    netLine(kind: "batteryLevel", value: 0.4, count: 2),
                    netLine(kind: "orientation", value: "portrait"),
                ])
                let fired = frames[4].json
                #expect(fired.string("occurrenceId") == "standup#0")
                #expect(fired.string("scheduledFor") == utc(fireDate))
                #expect(fired.object("alert")?.string("title") == "Stand-up")
                #expect(fired.bool("late") == false)

                // The delivery is recorded as quiet, on the stream.
                let delivery = try await eventually(timeout: .seconds(5)) { () -> JSONObject? in
                    let reply = try await http("GET", "\(LifecycleTarget.path(server))/deliveries")
                    return reply.json.objects("deliveries").first {
                        $0.string("occurrenceId") == "standup#0" && $0.string("outcome") != "pending"
                    }
                }
                #expect(delivery?.string("channel") == "stream")
                #expect(delivery?.string("outcome") == "delivered")
            }
        }
    }

    @Test("Heartbeats arrive every coalescer.heartbeatMs, and once the client disconnects the device is suspended within a few heartbeats",
          arguments: [false, true])
    func heartbeatsAndSuspension(foreground: Bool) async throws {
        try await withScratch { scratch in
            try await withLifecycleServer(in: scratch, heartbeatMilliseconds: 200) { server in
                try await Self.register(server)
                let connectedAt = ContinuousClock.now
                let stream = SSEClient(url: "\(LifecycleTarget.path(server))/events/stream\(foreground ? "?foreground=true" : "")")
                defer { stream.close() }
                #expect(await stream.waitUntil(timeout: .seconds(5)) { $0.filter { $0.comment == "heartbeat" }.count >= 4 },
                        "heartbeats: \(stream.frames)")
                // Four 200 ms heartbeats cannot all be there before 800 ms (a little less for clock slack);
                // arrival times on a loaded machine can bunch, so only the lower bound is checked.
                if let fourth = stream.heartbeats.dropFirst(3).first {
                    #expect(fourth.receivedAt - connectedAt >= .milliseconds(700),
                            "heartbeats come every coalescer.heartbeatMs, not faster")
                }
                #expect(try await LifecycleTarget.state(server) == (foreground ? "active" : "background"))

                stream.close()
                #expect(try await LifecycleTarget.waitForState("suspended", timeout: .seconds(2), server) == "suspended",
                        "suspended within a few heartbeats of the client going away")
            }
        }
    }
}
