import Foundation
import HeraldCore
import Hummingbird
import Testing

/// Device lifecycle through the HTTP API: reported states, awake and asleep, wake.
@Suite("Device lifecycle")
struct LifecycleTests {
    /// Registers the fixture app and device, returning nothing worth keeping.
    private static func setUp(_ herald: Herald) async throws {
        try await herald.registerApp()
        try await herald.registerDevice([:])
    }

    @Test("A new device is notRunning: asleep, so its events are queued, not delivered")
    func newDeviceIsAsleep() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            #expect(try await herald.deviceState() == "notRunning")
            let answer = try await herald.report([event("orientation", "landscapeLeft")])
            #expect(answer["accepted"].int == 1)
            #expect(answer["live"].int == 0)
            #expect(answer["queued"].int == 1)
            #expect(answer["backlog"].int == 1)
            #expect(try await herald.backlog() == [Net("orientation", .string("landscapeLeft"))])
        }
    }

    @Test("Every iOS state can be reported, and the answer names the new state",
          arguments: [
            ["inactive", "active", "background", "suspended", "notRunning"],
            ["active", "inactive", "notRunning", "background", "suspended", "suspended", "active"],
            ["background", "notRunning", "active", "background", "suspended"],
          ])
    func validTransitions(_ path: [String]) async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            for state in path {
                let answer = try await herald.moveTo(state)
                #expect(answer["state"].string == state)
                #expect(try await herald.deviceState() == state, "GET shows the reported state")
            }
        }
    }

    @Test("Only a background (or already suspended) device may be suspended: from notRunning, inactive or active it is invalidTransition, and nothing changes",
          arguments: ["notRunning", "inactive", "active"])
    func suspendOnlyFromBackground(_ from: String) async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            if from != "notRunning" { try await herald.moveTo(from) }
            try await herald.report([event("batteryState", "charging")])
            let backlog = try await herald.backlog()
            try await herald.expectRefusal(.put, "\(devicePath())/state", json: ["state": "suspended"],
                                           status: .unprocessableContent, reason: "invalidTransition")
            #expect(try await herald.deviceState() == from)
            #expect(try await herald.backlog() == backlog)
        }
    }

    @Test("An unknown state is invalidState, a missing one missingField; a state change for an unknown device is deviceNotFound")
    func badStates() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            let refusal = try await herald.expectRefusal(.put, "\(devicePath())/state", json: ["state": "sleeping"],
                                                         status: .unprocessableContent, reason: "invalidState")
            #expect(refusal.json["error"]["message"].string?.contains("background") == true, "the message lists the states")
            try await herald.expectRefusal(.put, "\(devicePath())/state", json: ["state": "Active"],
                                           status: .unprocessableContent, reason: "invalidState")
            try await herald.expectRefusal(.put, "\(devicePath())/state", json: [:],
                                           status: .unprocessableContent, reason: "missingField")
            expectError(try await herald.putState("active", device: "no-such-device"), status: .notFound,
                        reason: "deviceNotFound")
            expectError(try await herald.putState("active", app: "com.example.none"), status: .notFound,
                        reason: "appNotFound")
            #expect(try await herald.deviceState() == "notRunning")
        }
    }

    @Test("Moving from asleep to awake wakes the device: the answer carries its coalesced backlog, which is then gone")
    func asleepToAwakeWakes() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.report([event("orientation", "landscapeLeft"), event("batteryLevel", 0.25)])
            let answer = try await herald.moveTo("inactive")
            #expect(answer["woke"].bool == true)
            #expect(answer.coalesced == [Net("orientation", .string("landscapeLeft")), Net("batteryLevel", .number(0.25))])
            #expect(answer.inbox.isEmpty)
            #expect(try await herald.backlog().isEmpty, "a wake delivers the backlog once")
        }
    }

    @Test("Moving between awake states, or from awake to asleep, is not a wake: nothing is drained",
          arguments: [("active", "background"), ("active", "inactive"), ("background", "suspended"), ("inactive", "notRunning")])
    func notAWake(_ from: String, _ to: String) async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.moveTo(from)
            // Awake without a stream: queued all the same (see the coalescing tests).
            try await herald.report([event("proximity", true)])
            let answer = try await herald.moveTo(to)
            #expect(answer["woke"].bool == false)
            #expect(answer.coalesced.isEmpty)
            #expect(try await herald.backlog() == [Net("proximity", .bool(true))], "still waiting")
        }
    }

    @Test("Asleep to asleep is not a wake either: suspended to notRunning keeps the backlog")
    func asleepToAsleep() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.suspend()
            try await herald.report([event("protectedData", "unavailable")])
            let answer = try await herald.moveTo("notRunning")
            #expect(answer["woke"].bool == false)
            #expect(try await herald.backlog() == [Net("protectedData", .string("unavailable"))])
        }
    }

    @Test("wake moves an asleep device to background by default and drains its backlog")
    func wakeDefaultsToBackground() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.report([event("batteryState", "unplugged")])
            let answer = try await herald.wake()
            #expect(answer["state"].string == "background")
            #expect(answer["woke"].bool == true)
            #expect(answer.coalesced == [Net("batteryState", .string("unplugged"))])
            #expect(try await herald.deviceState() == "background")
        }
    }

    @Test("wake with state active wakes a suspended device into the foreground")
    func wakeIntoActive() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.suspend()
            try await herald.report([event("locale", "fr_FR")])
            let answer = try await herald.wake("active")
            #expect(answer["state"].string == "active")
            #expect(answer["woke"].bool == true)
            #expect(answer.coalesced == [Net("locale", .string("fr_FR"))])
            #expect(try await herald.deviceState() == "active")
        }
    }

    @Test("wake drains even an already awake device (its events were queued while it had no stream)")
    func wakeDrainsAwakeDevice() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.moveTo("background")
            try await herald.report([event("significantTimeChange")])
            let answer = try await herald.wake()
            #expect(answer["woke"].bool == true)
            #expect(answer.coalesced == [Net("significantTimeChange")])
            let again = try await herald.wake()
            #expect(again.coalesced.isEmpty, "nothing is delivered twice")
            #expect(again.inbox.isEmpty)
        }
    }

    @Test("wake refuses any target state but background or active with invalidState, and changes nothing",
          arguments: ["suspended", "notRunning", "inactive", "awake"])
    func wakeRefusesOtherStates(_ state: String) async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.report([event("orientation", "faceUp")])
            try await herald.expectRefusal(.post, "\(devicePath())/wake", json: ["state": state],
                                           status: .unprocessableContent, reason: "invalidState")
            #expect(try await herald.backlog() == [Net("orientation", .string("faceUp"))], "nothing was drained")
        }
    }

    @Test("wake with a body that is not JSON is refused as invalidJSON (400), never a 500, and drains nothing")
    func wakeWithMalformedBody() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.report([event("orientation", "faceUp")])
            try await herald.expectRefusal(.post, "\(devicePath())/wake", body: "{state: active",
                                           status: .badRequest, reason: "invalidJSON")
            try await herald.expectRefusal(.post, "\(devicePath())/wake", body: #"{"state": 5}"#,
                                           status: .unprocessableContent, reason: "invalidField")
            #expect(try await herald.backlog() == [Net("orientation", .string("faceUp"))], "nothing was drained")
        }
    }

    @Test("State, events, wake and the backlog of an unknown device are deviceNotFound")
    func unknownDevice() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            let path = devicePath(Fixture.app, "ghost")
            expectError(try await herald.api.post("\(path)/events", json: ["events": [event("orientation", "portrait")]]),
                        status: .notFound, reason: "deviceNotFound")
            expectError(try await herald.postWake(device: "ghost"), status: .notFound, reason: "deviceNotFound")
            expectError(try await herald.api.get("\(path)/events/backlog"), status: .notFound, reason: "deviceNotFound")
            expectError(try await herald.api.get("\(path)/events/stream"), status: .notFound, reason: "deviceNotFound")
        }
    }

    @Test("A device re-registered with PUT keeps its lifecycle state and its backlog")
    func reregistrationKeepsState() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.suspend()
            try await herald.report([event("orientation", "landscapeRight")])
            try await herald.registerDevice(["locale": "de_DE"])
            #expect(try await herald.deviceState() == "suspended")
            #expect(try await herald.backlog() == [Net("orientation", .string("landscapeRight"))])
        }
    }
}

/// The live event stream and the lifecycle: connecting wakes, the last close suspends.
@Suite("Device lifecycle on the live event stream")
struct LifecycleStreamTests {
    private static func setUp(_ herald: Herald) async throws {
        try await herald.registerApp()
        try await herald.registerDevice([:])
    }

    @Test("Connecting to the event stream wakes an asleep device into background; when the stream closes it is suspended")
    func streamWakesAndSuspends() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await Self.setUp(herald)
            let stream = try await live.connect()
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(try await herald.deviceState() == "background")
            stream.close()
            #expect(try await herald.waitForState("suspended") == "suspended",
                    "a device whose last stream closed is asleep again")
        }
    }

    @Test("Connecting with foreground=true wakes the device into active; when the stream closes it is suspended")
    func foregroundStreamWakesActiveAndSuspends() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await Self.setUp(herald)
            let stream = try await live.connect(foreground: true)
            defer { stream.close() }
            #expect(try await herald.deviceState() == "active")
            stream.close()
            #expect(try await herald.waitForState("suspended") == "suspended",
                    "a device whose last stream closed is asleep again, even if it was in the foreground")
        }
    }

    @Test("Connecting without foreground leaves an already awake device in its state")
    func streamKeepsAwakeState() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await Self.setUp(herald)
            try await herald.moveTo("inactive")
            let stream = try await live.connect()
            defer { stream.close() }
            #expect(try await herald.deviceState() == "inactive")
        }
    }

    @Test("With two streams open, closing one keeps the device awake; closing the last suspends it")
    func lastStreamSuspends() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await Self.setUp(herald)
            let first = try await live.connect()
            defer { first.close() }
            let second = try await live.connect()
            defer { second.close() }
            first.close()
            // Give the server a few heartbeats (100 ms) to notice the first one is gone.
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await herald.deviceState() == "background")
            let answer = try await herald.report([event("orientation", "portrait")])
            #expect(answer["live"].int == 1, "the remaining stream still takes events live")
            #expect(await second.waitForEvents(1).map(\.event) == ["system"])
            second.close()
            #expect(try await herald.waitForState("suspended") == "suspended")
        }
    }

    @Test("Heartbeats arrive on an idle stream every coalescer.heartbeatMs")
    func heartbeats() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await Self.setUp(herald)
            let start = ContinuousClock.now
            let stream = try await live.connect()
            defer { stream.close() }
            #expect(await stream.waitUntil(timeout: .seconds(3)) { $0.filter { $0.comment == "heartbeat" }.count >= 3 })
            #expect(ContinuousClock.now - start >= .milliseconds(280), "three 100 ms heartbeats take at least 300 ms")
            #expect(stream.events.isEmpty, "heartbeats are comments, not events")
        }
    }

    @Test("The stream answers text/event-stream and starts with ': connected'")
    func streamShape() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await Self.setUp(herald)
            let stream = try await live.connect()
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.contentType?.hasPrefix("text/event-stream") == true, "content type: \(stream.contentType ?? "none")")
            #expect(stream.frames.first?.comment == "connected")
        }
    }
}
