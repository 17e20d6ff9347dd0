import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HeraldTestSupport
import Testing

// "Several nodes behave as one": `herald serve` processes sharing one PostgreSQL, writes spread
// over them, every occurrence reaching the APNs sandbox exactly once; kill -9 of a node loses
// nothing, and repeats only what that node had in flight.

/// A real PostgreSQL, one APNs sandbox, and `herald serve` nodes sharing the database.
private final class Cluster: @unchecked Sendable {
    static let app = "com.example.alarm"
    let scratch: Scratch
    let database: PostgresServer
    let sandbox: ChildProcess
    let sandboxURL: String
    let sandboxAdmin: String
    private(set) var nodes: [String: ServerProcess] = [:]

    private init(scratch: Scratch, database: PostgresServer, sandbox: ChildProcess, sandboxURL: String, sandboxAdmin: String) {
        self.scratch = scratch
        self.database = database
        self.sandbox = sandbox
        self.sandboxURL = sandboxURL
        self.sandboxAdmin = sandboxAdmin
    }

    static func start(in scratch: Scratch) async throws -> Cluster {
        let database = try PostgresServer.start()
        do {
            let sandbox = try ChildProcess(
                arguments: ["sandbox", "run", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0",
                            "--certs", TestCertificates.directory, "--log-level", "error"],
                environment: [:], outputPrefix: scratch.file("sandbox"))
            let line = await eventually(timeout: .seconds(20), interval: .milliseconds(20)) { () -> String? in
                sandbox.stdout.split(separator: "\n").first { $0.hasPrefix("herald sandbox listening on") }.map(String.init)
            }
            guard let line, let url = line.split(separator: " ").first(where: { $0.hasPrefix("https://") }),
                  let admin = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }) else {
                sandbox.signal(SIGKILL)
                throw EndToEndFailure("the sandbox did not start:\n\(sandbox.stdout)\n\(sandbox.stderr)")
            }
            return Cluster(scratch: scratch, database: database, sandbox: sandbox, sandboxURL: String(url),
                           sandboxAdmin: String(admin.trimmingCharacters(in: CharacterSet(charactersIn: ")"))))
        } catch {
            database.stop()
            throw error
        }
    }

    /// Starts node `name` (again, after a crash: the same name takes back what it held).
    func startNode(_ name: String) async throws {
        let yaml = """
            listen: 127.0.0.1:0
            dataDir: \(scratch.file(name).path)
            logLevel: error
            storage:
              url: \(database.url())
            node:
              id: \(name)
              leaseMs: 3000
              sweepMs: 500
            limits:
              ratePerSecond: 100000
              rateBurst: 100000

            """
        let file = scratch.file("\(name).yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        nodes[name] = try await ServerProcess.start(arguments: ["--config", file.path], in: scratch)
    }

    func node(_ name: String) -> ServerProcess { nodes[name]! }

    func crash(_ name: String) async throws { try await nodes[name]!.crash() }

    /// Registers the app, pushing into the sandbox, and `devices` devices with tokens, spread over the nodes.
    func register(devices: [String], token: (String) -> String) async throws {
        let names = nodes.keys.sorted()
        let app = try await http("PUT", "\(node(names[0]).baseURL)/v1/apps/\(Self.app)", json: ["push": [
            "environment": sandboxURL, "caFile": TestCertificates.path("dev-ca.pem"),
            "auth": ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001",
                     "keyFile": TestCertificates.path("dev-apns-key.p8")],
        ]])
        try #require(app.status == 201 || app.status == 200, "\(String(decoding: app.body, as: UTF8.self))")
        for (index, device) in devices.enumerated() {
            let reply = try await http("PUT", "\(node(names[index % names.count]).baseURL)/v1/apps/\(Self.app)/devices/\(device)",
                                       json: ["timeZone": "UTC", "token": token(device)])
            try #require(reply.status == 201 || reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        }
    }

    /// Gives the app FCM and Web Push settings pointing at the sandbox, and registers `android`
    /// devices (FCM token = device id) and `web` devices (a subscription each, from the sandbox),
    /// spread over the nodes. Returns each web device's subscription id.
    func registerChannels(android: [String], web: [String]) async throws -> [String: String] {
        let names = nodes.keys.sorted()
        var account = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: TestCertificates.path("dev-fcm-service-account.json")))) as? [String: Any])
        account["token_uri"] = sandboxURL + "/token"
        let current = try await http("GET", "\(node(names[0]).baseURL)/v1/apps/\(Self.app)").json.raw
        var app = current.filter { ["push", "overflow"].contains($0.key) }
        app["push"] = (current["push"] as? [String: Any]).map { push in
            var push = push
            if var auth = push["auth"] as? [String: Any] { auth["keyFile"] = TestCertificates.path("dev-apns-key.p8"); push["auth"] = auth }
            return push
        }
        app["fcm"] = ["serviceAccount": account, "endpoint": sandboxURL, "caFile": TestCertificates.path("dev-ca.pem")]
        app["webPush"] = ["subject": "mailto:cluster@herald.invalid", "caFile": TestCertificates.path("dev-ca.pem"),
                          "allowedHosts": ["127.0.0.1"]]
        let put = try await http("PUT", "\(node(names[0]).baseURL)/v1/apps/\(Self.app)", json: app)
        try #require(put.status == 200 || put.status == 201, "\(String(decoding: put.body, as: UTF8.self))")
        var subscriptions: [String: String] = [:]
        for (index, device) in (android + web).enumerated() {
            var body: [String: Any] = ["timeZone": "UTC"]
            if index < android.count {
                body["platform"] = "android"
                body["fcmToken"] = device
            } else {
                let created = try await http("POST", "\(sandboxAdmin)/webpush/subscriptions", json: [:])
                let subscription = try #require(try JSONSerialization.jsonObject(with: created.body) as? [String: Any])
                subscriptions[device] = (subscription["endpoint"] as? String)?.split(separator: "/").last.map(String.init)
                body["platform"] = "web"
                body["webPush"] = subscription
            }
            let reply = try await http("PUT", "\(node(names[index % names.count]).baseURL)/v1/apps/\(Self.app)/devices/\(device)",
                                       json: body)
            try #require(reply.status == 201 || reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        }
        return subscriptions
    }

    /// How many messages the sandbox's FCM and Web Push took per (device, occurrence id).
    func receivedOnChannels(android: [String], web: [String: String]) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for device in android {
            for entry in try await http("GET", "\(sandboxAdmin)/fcm/inbox/\(device)").json.objects("messages") {
                counts["\(device)/\(entry.object("message")?.object("android")?.string("collapse_key") ?? "-")", default: 0] += 1
            }
        }
        for (device, id) in web {
            for entry in try await http("GET", "\(sandboxAdmin)/webpush/inbox/\(id)").json.objects("messages") {
                counts["\(device)/\(entry.object("message")?.string("id") ?? "-")", default: 0] += 1
            }
        }
        return counts
    }

    /// Schedules one-shots, 16 requests at a time, spread over the running nodes (or `on` these).
    func schedule(_ items: [(device: String, id: String, at: Date)], on names: [String]? = nil) async throws {
        let bases = (names ?? nodes.keys.sorted()).map { node($0).baseURL }
        try await forEach(items, concurrently: 16) { index, item in
            let reply = try await http("POST", "\(bases[index % bases.count])/v1/apps/\(Self.app)/devices/\(item.device)/notifications",
                                       json: ["id": item.id, "fireDate": rfc3339Milliseconds(item.at), "alert": ["body": item.id]])
            try #require(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
        }
    }

    /// How many pushes the sandbox received per (token, apns-collapse-id).
    func received(tokens: [String]) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for token in tokens {
            let reply = try await http("GET", "\(sandboxAdmin)/inbox/\(token)")
            for entry in reply.json.objects("notifications") {
                counts["\(token)/\(entry.string("collapseId") ?? "-")", default: 0] += 1
            }
        }
        return counts
    }

    /// Firings per node that delivered them, from the fire log.
    func firingsByNode() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try database.query("SELECT claimed_by, count(*) FROM delivery WHERE outcome <> 'pending' GROUP BY 1")
        where row.count == 2 {
            counts[row[0]] = Int(row[1])
        }
        return counts
    }

    /// Occurrences (device/occurrence id) whose firing was taken over at least once.
    func handedOver() throws -> Set<String> {
        Set(try database.query("SELECT device_id, occurrence_id FROM delivery WHERE handovers > 0")
            .filter { $0.count == 2 }.map { "\($0[0])/\($0[1])" })
    }

    func stop() async {
        for node in nodes.values { await node.stop() }
        sandbox.signal(SIGTERM)
        if await sandbox.waitForExit(timeout: .seconds(5)) == nil { sandbox.signal(SIGKILL) }
        database.stop()
    }
}

extension Date {
    var millisecondsSince1970Text: String { String(Int64(timeIntervalSince1970 * 1000)) }
}

private func rfc3339Milliseconds(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
}

private func withCluster(_ body: (Cluster) async throws -> Void) async throws {
    try await withScratch { scratch in
        let cluster = try await Cluster.start(in: scratch)
        do {
            try await body(cluster)
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }
}

/// How long scheduling `count` one-shots takes here, measured on `probe` items that fire far in
/// the future, with room to spare: the lead a burst needs.
private func lead(for count: Int, cluster: Cluster, probeDevice: String) async throws -> TimeInterval {
    func probe(_ count: Int) async throws {
        try await cluster.schedule((0..<count).map { (probeDevice, "probe-\($0)-\(UUID().uuidString.prefix(8))",
                                                      Date().addingTimeInterval(86_400)) })
    }
    // A first round warms the nodes' connections, so the estimate is not their cold start.
    try await probe(16)
    let probes = 100
    let started = ContinuousClock.now
    try await probe(probes)
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return seconds / Double(probes) * Double(count) * 1.5 + 2
}

@Suite("Several nodes end to end", .serialized)
struct ClusterEndToEndTests {
    /// Distinct tokens for `devices`, numbered from `base`; a probe device gets one apart.
    static func tokens(_ devices: [String], base: Int) -> [String: String] {
        Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($0.element, testDeviceToken(base + $0.offset, family: 0xc1)) })
    }

    static func probeToken(_ seed: Int) -> String { testDeviceToken(seed, family: 0xc2) }

    @Test("3 nodes, writes spread over them: 4,000 one-shots due within 3 s reach the sandbox exactly once; a node started later takes a share",
          .timeLimit(.minutes(10)))
    func burstExactlyOnce() async throws {
        try await withCluster { cluster in
            for name in ["node-a", "node-b", "node-c"] { try await cluster.startNode(name) }
            let devices = (0..<100).map { "device-\($0)" }
            let tokens = Self.tokens(devices, base: 0)
            try await cluster.register(devices: devices + ["probe"], token: { tokens[$0] ?? Self.probeToken(0) })
            let count = 4_000
            let burstStart = Date().addingTimeInterval(try await lead(for: count, cluster: cluster, probeDevice: "probe"))
            let items = (0..<count).map { index in
                (device: devices[index % devices.count], id: "n\(index)",
                 at: burstStart.addingTimeInterval(3 * Double(index) / Double(count)))
            }
            try await cluster.schedule(items)
            try #require(Date() < burstStart.addingTimeInterval(-1), "scheduling took longer than the lead")
            // A node that joins after everything was scheduled arms it all at start.
            try await cluster.startNode("node-d")
            try #require(Date() < burstStart, "starting a node took longer than the lead")
            let expected = Set(items.map { "\(tokens[$0.device]!)/\($0.id)#0" })
            // Measured from the burst, not from now: a generous lead must not eat the wait.
            let wait = max(0, burstStart.timeIntervalSinceNow) + 3 + 120
            let received = try await eventually(timeout: .seconds(wait), interval: .seconds(1)) { () -> [String: Int]? in
                let received = try await cluster.received(tokens: devices.map { tokens[$0]! })
                return Set(received.keys).isSuperset(of: expected) ? received : nil
            }
            if received == nil {
                let now = Date().millisecondsSince1970Text
                print("DIAG received:", try await cluster.received(tokens: devices.map { tokens[$0]! }).count)
                print("DIAG log:", try cluster.database.query("SELECT outcome, channel, claimed_by, count(*) FROM delivery GROUP BY 1, 2, 3"))
                print("DIAG due:", try cluster.database.query("SELECT count(*) FROM notification WHERE next_fire_at < \(now)"))
                for name in ["node-a", "node-b", "node-c", "node-d"] { print("DIAG \(name):", cluster.node(name).child.stderr.suffix(3000)) }
            }
            let got = try #require(received, "not every occurrence reached the sandbox within 2 minutes of the burst")
            let repeated = got.filter { $0.value > 1 }
            #expect(repeated.isEmpty, "\(repeated.count) occurrences reached the sandbox more than once while all nodes were healthy")
            #expect(got.count == count, "\(got.count) distinct pushes, not \(count)")
            let shares = try cluster.firingsByNode()
            print("firings by node: \(shares.sorted { $0.key < $1.key })")
            #expect(shares.values.reduce(0, +) == count, "fire log: \(shares)")
            #expect((shares["node-d"] ?? 0) > 0, "the node started later fired nothing: \(shares)")
        }
    }

    @Test("A device streaming on one node gets, live and with ids, what fires and what is reported on the others; an ack on a third node clears its inbox (10 rounds)",
          .timeLimit(.minutes(5)))
    func liveStreamAcrossNodes() async throws {
        try await withCluster { cluster in
            let names = ["node-a", "node-b", "node-c"]
            for name in names { try await cluster.startNode(name) }
            let rounds = 10
            let devices = (0..<rounds).map { "stream-\($0)" }
            let tokens = Self.tokens(devices, base: 50_000)
            try await cluster.register(devices: devices, token: { tokens[$0]! })
            for (round, device) in devices.enumerated() {
                // The stream on one node, the writes on the other two.
                let (streaming, writer, acker) = (names[round % 3], names[(round + 1) % 3], names[(round + 2) % 3])
                let path = "/v1/apps/\(Cluster.app)/devices/\(device)"
                let stream = SSEClient(url: "\(cluster.node(streaming).baseURL)\(path)/events/stream?foreground=true")
                defer { stream.close() }
                try #require(await stream.waitUntil(timeout: .seconds(10)) { $0.first?.comment == "connected" },
                             "round \(round): the stream on \(streaming) did not open: \(stream.frames)")
                let start = Date().addingTimeInterval(1)
                let ids = (0..<10).map { "live-\($0)" }
                try await cluster.schedule(ids.enumerated().map { (device, $0.element, start.addingTimeInterval(0.05 * Double($0.offset))) },
                                           on: [writer])
                let event = try await http("POST", "\(cluster.node(acker).baseURL)\(path)/events",
                                           json: ["events": [["kind": "batteryLevel", "value": 0.25]]])
                try #require(event.status == 200, "\(String(decoding: event.body, as: UTF8.self))")
                #expect(event.json.int("live") == 1, "round \(round): an event for a device streaming on another node goes live")
                let arrived = await stream.waitUntil(timeout: .seconds(10)) { frames in
                    frames.filter { $0.event == "notification" }.count >= ids.count && frames.contains { $0.event == "system" }
                }
                let notifications = stream.events.filter { $0.event == "notification" }
                try #require(arrived, "round \(round): streamed on \(streaming): \(stream.events)")
                #expect(Set(notifications.compactMap { $0.json.string("notificationId") }) == Set(ids),
                        "round \(round): each notification once: \(notifications)")
                let sequences = notifications.compactMap { $0.id.flatMap { Int64($0) } }
                #expect(sequences.count == ids.count, "round \(round): every notification carries its inbox id")
                let system = stream.events.filter { $0.event == "system" }
                #expect(system.count == 1 && system.first?.json.string("kind") == "batteryLevel", "round \(round): \(system)")
                // Acknowledged on a third node, as on one: the inbox is empty after.
                let ack = try await http("POST", "\(cluster.node(acker).baseURL)\(path)/inbox/ack",
                                         json: ["upTo": sequences.max() ?? 0])
                #expect(ack.json.int("acknowledged") == ids.count, "round \(round): \(String(decoding: ack.body, as: UTF8.self))")
                // A streamed firing's outcome is stored once the stream was told (pending until then):
                // read it once none is pending.
                var channels: [[String]] = []
                _ = try await pollUntil {
                    channels = try cluster.database.query(
                        "SELECT channel, outcome, count(*) FROM delivery WHERE device_id = '\(device)' GROUP BY 1, 2")
                    return !channels.contains { $0.first == "pending" }
                }
                #expect(channels == [["stream", "delivered", "\(ids.count)"]], "round \(round): \(channels)")
            }
            // Which node fired is the cluster's choice: across the rounds, some fired elsewhere.
            let relayed = try cluster.database.query("""
                SELECT count(*) FROM delivery l WHERE device_id LIKE 'stream-%' AND claimed_by <> (
                    CASE substring(device_id from 8)::int % 3 WHEN 0 THEN 'node-a' WHEN 1 THEN 'node-b' ELSE 'node-c' END)
                """)
            print("live stream across nodes: \(relayed) of \(rounds * 10) notifications fired on a node other than the stream's")
            #expect((Int(relayed.first?.first ?? "0") ?? 0) > 0, "no notification was fired on a node other than the stream's")
            let pushed = try await cluster.received(tokens: devices.map { tokens[$0]! })
            #expect(pushed.isEmpty, "a streaming device is not pushed: \(pushed.count)")
        }
    }

    @Test("kill -9 of one of 3 nodes mid-burst: nothing is missing, and only firings it held are repeated (4 rounds, each node killed at least once)",
          .timeLimit(.minutes(15)))
    func killOneNodeMidBurst() async throws {
        try await withCluster { cluster in
            let names = ["node-a", "node-b", "node-c"]
            for name in names { try await cluster.startNode(name) }
            var totalRepeated = 0
            for round in 0..<4 {
                let devices = (0..<20).map { "r\(round)-device-\($0)" }
                let tokens = Self.tokens(devices, base: 1_000 * (round + 1))
                try await cluster.register(devices: devices + ["r\(round)-probe"], token: { tokens[$0] ?? Self.probeToken(round + 1) })
                let count = 1_000
                let burstStart = Date().addingTimeInterval(
                    try await lead(for: count, cluster: cluster, probeDevice: "r\(round)-probe"))
                let items = (0..<count).map { index in
                    (device: devices[index % devices.count], id: "n\(index)",
                     at: burstStart.addingTimeInterval(Double(index) / Double(count)))
                }
                try await cluster.schedule(items)
                try #require(Date() < burstStart, "round \(round): scheduling took longer than the lead")
                let victim = names[round % names.count]
                try await Task.sleep(for: .seconds(max(0, burstStart.addingTimeInterval(0.4).timeIntervalSinceNow)))
                try await cluster.crash(victim)
                let expected = Set(items.map { "\(tokens[$0.device]!)/\($0.id)#0" })
                let received = try await eventually(timeout: .seconds(60), interval: .milliseconds(500)) { () -> [String: Int]? in
                    let received = try await cluster.received(tokens: devices.map { tokens[$0]! })
                    return Set(received.keys).isSuperset(of: expected) ? received : nil
                }
                let got = try #require(received, "round \(round): occurrences missing a minute after \(victim) was killed")
                #expect(got.count == count, "round \(round): \(got.count) distinct pushes")
                // A repeat is allowed only for a firing that was taken over from the dead node.
                let handedOver = try cluster.handedOver()
                let byToken = Dictionary(uniqueKeysWithValues: tokens.map { ($0.value, $0.key) })
                let repeated = got.filter { $0.value > 1 }.keys.map { key -> String in
                    let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                    return "\(byToken[parts[0]] ?? parts[0])/\(parts[1])"
                }
                let unexplained = repeated.filter { !handedOver.contains($0) }
                #expect(unexplained.isEmpty, "round \(round): repeated without a takeover: \(unexplained.sorted().prefix(5))")
                totalRepeated += repeated.count
                print("round \(round): killed \(victim); \(repeated.count) of \(count) repeated, \(handedOver.count) taken over so far")
                try await cluster.startNode(victim)
            }
            print("kill -9 rounds: \(totalRepeated) repeated pushes in all, each a firing the killed node had in flight")
        }
    }

    @Test("3 nodes on PostgreSQL: 1,000 one-shots to android and web installations reach FCM and Web Push exactly once",
          .timeLimit(.minutes(5)))
    func fcmAndWebPushExactlyOnceAcrossNodes() async throws {
        try await withCluster { cluster in
            for name in ["node-a", "node-b", "node-c"] { try await cluster.startNode(name) }
            try await cluster.register(devices: ["probe"], token: { _ in Self.probeToken(1) })
            let android = (0..<20).map { "fcm-cluster-\($0)" }
            let web = (0..<20).map { "web-cluster-\($0)" }
            let subscriptions = try await cluster.registerChannels(android: android, web: web)
            let devices = android + web
            let count = 1_000
            let burstStart = Date().addingTimeInterval(try await lead(for: count, cluster: cluster, probeDevice: "probe"))
            let items = (0..<count).map { index in
                (device: devices[index % devices.count], id: "n\(index)", at: burstStart.addingTimeInterval(2 * Double(index) / Double(count)))
            }
            try await cluster.schedule(items)
            try #require(Date() < burstStart, "scheduling took longer than the lead")
            let expected = Set(items.map { "\($0.device)/\($0.id)#0" })
            let wait = max(0, burstStart.timeIntervalSinceNow) + 2 + 60
            let received = try await eventually(timeout: .seconds(wait), interval: .seconds(1)) { () -> [String: Int]? in
                let received = try await cluster.receivedOnChannels(android: android, web: subscriptions)
                return Set(received.keys).isSuperset(of: expected) ? received : nil
            }
            let got = try #require(received, "not every occurrence reached FCM or Web Push within a minute of the burst")
            #expect(got.filter { $0.value > 1 }.isEmpty, "\(got.filter { $0.value > 1 }.count) occurrences arrived more than once")
            #expect(got.count == count, "\(got.count) distinct messages, not \(count)")
            let shares = try cluster.firingsByNode()
            #expect(shares.count > 1, "the nodes shared the work: \(shares)")
        }
    }
    @Test("3 nodes on PostgreSQL: 400 scheduled channel broadcasts and Live Activity updates each go out once",
          .timeLimit(.minutes(5)))
    func broadcastsOnceAcrossNodes() async throws {
        try await withCluster { cluster in
            for name in ["node-a", "node-b", "node-c"] { try await cluster.startNode(name) }
            let bases = ["node-a", "node-b", "node-c"].map { cluster.node($0).baseURL }
            let burst = LiveActivityBurst(devices: 4, channels: 4)
            let channelIDs = try await burst.setUp(bases: bases, sandboxURL: cluster.sandboxURL)
            let start = Date().addingTimeInterval(8)
            let items = burst.items(count: 400, start: start, spread: 2)
            try await burst.schedule(items, bases: bases)
            try #require(Date() < start, "scheduling took longer than the lead")
            let expected = Set(items.map(\.expectedKey))
            let received = try await eventually(timeout: .seconds(70), interval: .seconds(1)) { () -> [String: Int]? in
                let received = try await burst.received(sandboxAdmin: cluster.sandboxAdmin, channelIDs: channelIDs)
                return Set(received.keys).isSuperset(of: expected) ? received : nil
            }
            let got = try #require(received, "not every broadcast and update reached the sandbox within a minute")
            // A moment more, so that a second copy on its way would be counted too.
            try await Task.sleep(for: .seconds(2))
            let settled = try await burst.received(sandboxAdmin: cluster.sandboxAdmin, channelIDs: channelIDs)
            #expect(settled.filter { $0.value > 1 }.isEmpty, "\(settled.filter { $0.value > 1 }.count) went out more than once")
            #expect(Set(got.keys) == expected, "pushes arrived that were never scheduled")
        }
    }
}
