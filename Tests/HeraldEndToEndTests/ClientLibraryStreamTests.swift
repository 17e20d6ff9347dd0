import Foundation
import HeraldClient
import HeraldTestSupport
import Testing

// HeraldClient's event stream (`events(app:device:)`) against the real `herald serve`: it
// outlives the server being killed and restarted, hands every fired notification to its caller
// exactly once and in hand-over order, and ends cleanly when its task is cancelled or by throwing
// when the server refuses it.
//
// This file imports HeraldClient: `Device`, `Platform`, `JSONValue`, `HeraldError` here are the
// library's types.

@Suite("HeraldClient event stream against the real server", .serialized)
struct ClientLibraryStreamTests {
    /// A short heartbeat: the server notices a client gone within a few hundred milliseconds.
    static let shortHeartbeat = ["HERALD_COALESCER_HEARTBEAT_MS": "300"]

    @Test("events(device:) resumes after the server is killed and restarted: over 10 rounds nothing is lost and nothing repeated",
          .timeLimit(.minutes(3)))
    func resumesAcrossRestarts() async throws {
        try await withScratch { scratch in
            try await withRestartableServer(in: scratch, environment: Self.shortHeartbeat) { server in
                let app = ClientE2E.app
                let device = "watcher"
                // Reconnections 50 ms apart at first, never more than 400 ms: the server is back
                // within a second or two of each kill.
                let client = ClientE2E.client(baseURL: server.baseURL)
                _ = try await client.putApp(app)
                try await registerTokenless(client, device: device)

                let recorder = EventRecorder()
                let events = client.events(app: app, device: device, foreground: true, idleTimeout: .seconds(10))
                let consumer = Task {
                    for try await event in events { await recorder.record(event) }
                }
                defer { consumer.cancel() }
                let connected = await pollUntil(timeout: .seconds(20)) { await recorder.connections >= 1 }
                try #require(connected, "the event stream never connected")
                #expect(try await client.device(app: app, device: device).state == .active, "foreground: true makes it active")

                let started = ContinuousClock.now
                var scheduled: Set<String> = []
                var reported: [JSONValue] = []
                for round in 1...10 {
                    // Due about a second ahead, while the client is connected: live on the stream.
                    let due = Date().addingTimeInterval(1)
                    for index in 0..<3 {
                        let id = "r\(round)-live-\(index)"
                        try await client.schedule(app: app, device: device,
                                                  ClientE2E.oneShot(id, at: due.addingTimeInterval(Double(index) * 0.05)))
                        scheduled.insert(id)
                    }
                    // Everything so far, including the previous round's notifications due while
                    // the server was down: they fired on its restart, to the inbox or the stream.
                    let caughtUp = await pollUntil(timeout: .seconds(20), interval: .milliseconds(50)) {
                        await recorder.received(all: scheduled)
                    }
                    let missing = scheduled.subtracting(await recorder.notificationIDs).sorted()
                    try #require(caughtUp, "round \(round): the consumer never got \(missing)\n\(server.stderr.suffix(2000))")

                    // A live system event, handed over with its own id in the same sequence.
                    let level = JSONValue.number(Double(round) / 100)
                    let report = try await client.reportEvents(app: app, device: device, [SystemEvent(kind: "batteryLevel", value: level)])
                    #expect(report.live == 1, "round \(round): the connected device gets its event live")
                    reported.append(level)
                    let relayed = await pollUntil(timeout: .seconds(20), interval: .milliseconds(50)) {
                        await recorder.system.contains { $0.kind == "batteryLevel" && $0.value == level }
                    }
                    try #require(relayed, "round \(round): the live event never reached the consumer")

                    // Due while the server is down (it stays down until that one is past due, so on
                    // restart it fires before the client is back: to the inbox, handed over on
                    // reconnection), and just after it is back. Nothing is scheduled while it is down.
                    let now = Date()
                    let whileDown = now.addingTimeInterval(0.2)
                    for (index, at) in [whileDown, now.addingTimeInterval(1.5)].enumerated() {
                        let id = "r\(round)-down-\(index)"
                        try await client.schedule(app: app, device: device, ClientE2E.oneShot(id, at: at))
                        scheduled.insert(id)
                    }
                    try await server.crash()
                    try await Task.sleep(for: .seconds(max(0, whileDown.timeIntervalSinceNow + 0.2)))
                    try await server.start()
                }
                let complete = await pollUntil(timeout: .seconds(30), interval: .milliseconds(100)) {
                    await recorder.received(all: scheduled)
                }
                let fired = await recorder.notifications
                let receivedIDs = fired.map(\.item.notificationId)
                #expect(complete, "never received: \(scheduled.subtracting(receivedIDs).sorted())")
                #expect(Set(receivedIDs) == scheduled, "received, never scheduled: \(Set(receivedIDs).subtracting(scheduled).sorted())")
                let repeated = Dictionary(grouping: receivedIDs, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
                #expect(repeated.isEmpty, "handed to the caller twice: \(repeated)")
                #expect(receivedIDs.count == scheduled.count)
                let handOverIDs = fired.map(\.id)
                #expect(handOverIDs.allSatisfy { $0 != nil }, "every notification carries its hand-over id")
                let sequence = handOverIDs.compactMap { $0 }
                #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $0 < $1 }, "hand-over ids strictly increase: \(sequence)")
                #expect(fired.allSatisfy { $0.item.seq == $0.id }, "an item's seq is its event id")
                let levels = await recorder.system.filter { $0.kind == "batteryLevel" }.map(\.value)
                #expect(levels == reported, "each live system event handed over once, in order: \(levels)")

                // The deliveries say which way each went: live on the stream, or held in the inbox
                // (fired while no stream was connected) and handed over when the client reconnected.
                var channels: [String: Int] = [:]
                for try await delivery in client.allDeliveries(app: app, device: device, pageSize: 20) {
                    channels["\(delivery.channel)/\(delivery.outcome)", default: 0] += 1
                }
                #expect(channels.values.reduce(0, +) == scheduled.count, "one delivery per notification: \(channels)")
                #expect(Set(channels.keys).isSubset(of: ["stream/delivered", "inbox/held"]), "\(channels)")
                #expect((channels["inbox/held"] ?? 0) > 0, "some fired while the client was away and came from the inbox: \(channels)")
                let connections = await recorder.connections
                #expect(connections >= 11, "one connection per server life at least: \(connections)")
                #expect(server.starts == 11)
                print("events(device:) across 10 kill -9 restarts: \(receivedIDs.count) notifications \(channels), \(levels.count) live events, \(connections) connections, \(ContinuousClock.now - started)")

                // Cancelling the consuming task ends the sequence without an error, and closes the stream.
                consumer.cancel()
                if case .failure(let error) = await consumer.result {
                    Issue.record("cancelling the task ended the sequence by throwing \(error)")
                }
                let asleep = try await eventually(timeout: .seconds(15), interval: .milliseconds(100)) { () -> LifecycleState? in
                    let state = try await client.device(app: app, device: device).state
                    return state == .active ? nil : state
                }
                #expect(asleep != nil, "the stream closed, so the device is no longer active")
            }
        }
    }

    @Test("Cancelling the task that iterates events() ends the sequence cleanly, and the server sees the stream close",
          .timeLimit(.minutes(1)))
    func cancellingEndsCleanly() async throws {
        try await withScratch { scratch in
            try await withLifecycleServer(in: scratch, heartbeatMilliseconds: 200) { server in
                let app = ClientE2E.app
                let client = ClientE2E.client(server)
                _ = try await client.putApp(app)
                try await registerTokenless(client, device: "tablet")
                let recorder = EventRecorder()
                let events = client.events(app: app, device: "tablet")
                let consumer = Task {
                    for try await event in events { await recorder.record(event) }
                }
                defer { consumer.cancel() }
                let connected = await pollUntil(timeout: .seconds(20)) { await recorder.connections == 1 }
                try #require(connected, "the event stream never connected")
                #expect(try await client.device(app: app, device: "tablet").state == .background, "without foreground: background")

                // A live event goes through first: the stream is really open.
                let live = try await client.reportEvents(app: app, device: "tablet", [SystemEvent(kind: "orientation", value: "portrait")])
                #expect(live.live == 1)
                #expect(await pollUntil(timeout: .seconds(10)) { await recorder.system.contains { $0.kind == "orientation" } },
                        "the live event reached the consumer")

                consumer.cancel()
                if case .failure(let error) = await consumer.result {
                    Issue.record("cancelling the task ended the sequence by throwing \(error)")
                }
                #expect(await recorder.connections == 1, "no reconnection after the cancel")
                let state = try await eventually(timeout: .seconds(15), interval: .milliseconds(50)) { () -> LifecycleState? in
                    let state = try await client.device(app: app, device: "tablet").state
                    return state == .suspended ? state : nil
                }
                #expect(state == .suspended, "the server saw the stream close and suspended the device")
            }
        }
    }

    @Test("A 404 device ends events() by throwing HeraldError with reason deviceNotFound, without retrying",
          .timeLimit(.minutes(1)))
    func missingDeviceEndsByThrowing() async throws {
        try await withScratch { scratch in
            try await withServer(in: scratch) { server in
                let client = ClientE2E.client(server)
                _ = try await client.putApp(ClientE2E.app)
                let recorder = EventRecorder()
                let thrown = await #expect(throws: HeraldError.self) {
                    for try await event in client.events(app: ClientE2E.app, device: "ghost") { await recorder.record(event) }
                }
                #expect(thrown?.status == 404)
                #expect(thrown?.reason == "deviceNotFound")
                #expect(await recorder.connections == 0, "a refused stream never reports itself connected")
            }
        }
    }
}

extension ClientLibraryStreamTests {
    /// The connections `events()` makes to a server whose heartbeat is `heartbeatMilliseconds`,
    /// with an idle timeout of `idleTimeout`, until `enough` says so (or `timeout`).
    private static func connections(heartbeatMilliseconds: Int, idleTimeout: Duration, timeout: Duration,
                                    until enough: @escaping @Sendable (Int) -> Bool) async throws -> Int {
        try await withScratch { scratch in
            try await withLifecycleServer(in: scratch, heartbeatMilliseconds: heartbeatMilliseconds) { server in
                let client = ClientE2E.client(server)
                _ = try await client.putApp(ClientE2E.app)
                try await registerTokenless(client, device: "quiet")
                let recorder = EventRecorder()
                let events = client.events(app: ClientE2E.app, device: "quiet", idleTimeout: idleTimeout)
                let consumer = Task {
                    for try await event in events { await recorder.record(event) }
                }
                defer { consumer.cancel() }
                _ = await pollUntil(timeout: timeout, interval: .milliseconds(50)) { enough(await recorder.connections) }
                consumer.cancel()
                if case .failure(let error) = await consumer.result {
                    Issue.record("cancelling the task ended the sequence by throwing \(error)")
                }
                return await recorder.connections
            }
        }
    }

    @Test("A connection silent for longer than idleTimeout is dropped and made again; heartbeats keep one connection open",
          .timeLimit(.minutes(1)))
    func idleTimeoutReconnects() async throws {
        // Heartbeats every 60 s, an idle timeout of 1 s: the stream is made again and again.
        let silent = try await Self.connections(heartbeatMilliseconds: 60_000, idleTimeout: .seconds(1), timeout: .seconds(30)) {
            $0 >= 3
        }
        #expect(silent >= 3, "a silent connection is dropped after idleTimeout and made again: \(silent) connections")
        // Heartbeats every 200 ms, an idle timeout of 3 s: one connection throughout (there is no
        // event to wait for here: the rule is that nothing happens for 6 s, some 30 heartbeats).
        let kept = try await Self.connections(heartbeatMilliseconds: 200, idleTimeout: .seconds(3), timeout: .seconds(6)) { _ in false }
        #expect(kept == 1, "heartbeats keep the connection: \(kept) connections")
    }
}
