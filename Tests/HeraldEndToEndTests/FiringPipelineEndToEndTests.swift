import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HeraldTestSupport
import Testing

// "From fired to delivered": the timer never waits on the network, a cancel that was answered
// never fires, nothing fired is lost or handed over twice across kill -9, and SIGTERM stores what
// it delivered. Each race runs many times in one test, through the real binary.

/// RFC 3339 in UTC with milliseconds.
private func utcMilliseconds(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
}

/// `herald sandbox` in its own process on free ports, answering its admin API: its port and
/// admin URL. The caller kills it.
private func startSandbox(in scratch: Scratch) async throws -> (child: ChildProcess, port: Int, admin: String) {
    let sandboxPort = try unusedLoopbackPort()
    let adminPort = try unusedLoopbackPort()
    let sandbox = try ChildProcess(
        arguments: ["sandbox", "--listen", "127.0.0.1:\(sandboxPort)", "--admin", "127.0.0.1:\(adminPort)",
                    "--certs", WebhookE2E.certificates, "--log-level", "error"],
        environment: [:], outputPrefix: scratch.file("sandbox"))
    let admin = "http://127.0.0.1:\(adminPort)"
    _ = await eventually(timeout: .seconds(10), interval: .milliseconds(20)) { () -> Bool? in
        (try? await keyedHTTP("GET", admin + "/faults"))?.status == 200 ? true : nil
    }
    return (sandbox, sandboxPort, admin)
}

/// A server with no keys on loopback, for these tests: an app with `devices` devices.
private struct Pipeline {
    static let app = "com.example.alarm"
    let server: ServerProcess

    func device(_ index: Int) -> String { "device-\(index)" }

    func path(_ device: String) -> String { "\(server.baseURL)/v1/apps/\(Self.app)/devices/\(device)" }

    /// Registers the app (push settings optional) and the devices (tokens optional), each on
    /// `platform(index)` (ios by default).
    func register(devices: Int, push: [String: Any]? = nil, token: ((Int) -> String)? = nil,
                  platform: (Int) -> String = { _ in "ios" }) async throws {
        let app = try await http("PUT", "\(server.baseURL)/v1/apps/\(Self.app)", json: push.map { ["push": $0] } ?? [:])
        try #require(app.status == 201 || app.status == 200, "\(String(decoding: app.body, as: UTF8.self))")
        for index in 0..<devices {
            var body: [String: Any] = ["timeZone": "UTC", "platform": platform(index)]
            if let token { body["token"] = token(index) }
            let reply = try await http("PUT", path(device(index)), json: body)
            try #require(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
        }
    }

    /// Schedules one-shots, eight requests at a time; each is (device, id, instant).
    func schedule(_ items: [(device: String, id: String, at: Date)]) async throws {
        try await forEach(items, concurrently: 8) { _, item in
            let reply = try await http("POST", path(item.device) + "/notifications",
                                       json: ["id": item.id, "fireDate": utcMilliseconds(item.at), "alert": ["body": item.id]])
            try #require(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
        }
    }

    func deliveries(_ device: String) async throws -> [JSONObject] {
        try await http("GET", path(device) + "/deliveries?limit=1000").json.objects("deliveries")
    }

    /// Waits until `device` has `count` deliveries, none pending.
    func settled(_ device: String, count: Int, timeout: Duration = .seconds(30)) async throws -> [JSONObject]? {
        try await eventually(timeout: timeout, interval: .milliseconds(50)) { () -> [JSONObject]? in
            let found = try await deliveries(device)
            return found.count >= count && found.allSatisfy({ $0.string("outcome") != "pending" }) ? found : nil
        }
    }

    /// Wakes `device` and returns the occurrence ids of its inbox.
    func wakeInbox(_ device: String) async throws -> [String] {
        let reply = try await http("POST", path(device) + "/wake", json: [:])
        try #require(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        return reply.json.objects("inbox").compactMap { $0.string("occurrenceId") }
    }
}

@Suite("Firing pipeline end to end", .serialized)
struct FiringPipelineEndToEndTests {
    @Test("kill -9 mid-burst of mixed ios, android and web installations, then restart: every occurrence reaches its inbox exactly once (10 rounds)",
          .timeLimit(.minutes(5)))
    func killMidBurstLosesNothing() async throws {
        let devices = 10
        let perDevice = 60
        for round in 1...10 {
            try await withScratch { scratch in
                let arguments = ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory]
                try await withServer(arguments: arguments, in: scratch) { server in
                    let pipeline = Pipeline(server: server)
                    let platforms = ["ios", "android", "web"]
                    try await pipeline.register(devices: devices, platform: { platforms[$0 % platforms.count] })
                    // The lead covers 600 schedules through a debug build on a loaded CI machine.
                    let burstStart = Date().addingTimeInterval(8)
                    var items: [(device: String, id: String, at: Date)] = []
                    for index in 0..<(devices * perDevice) {
                        // Spread over one second, devices interleaved.
                        items.append((pipeline.device(index % devices), "n\(index)",
                                      burstStart.addingTimeInterval(Double(index) / Double(devices * perDevice))))
                    }
                    try await pipeline.schedule(items)
                    try #require(Date() < burstStart, "round \(round): scheduling took longer than the lead")
                    // Die in the middle of the burst.
                    try await Task.sleep(for: .seconds(max(0, burstStart.addingTimeInterval(0.5).timeIntervalSinceNow)))
                    try await server.crash()
                }
                try await withServer(arguments: arguments, in: scratch) { server in
                    let pipeline = Pipeline(server: server)
                    var seen: [String: Int] = [:]
                    for index in 0..<devices {
                        let device = pipeline.device(index)
                        let fired = try await pipeline.settled(device, count: perDevice)
                        #expect(fired?.count == perDevice,
                                "round \(round), \(device): \(fired?.count ?? -1) deliveries, not \(perDevice)")
                        for id in try await pipeline.wakeInbox(device) { seen["\(device)/\(id)", default: 0] += 1 }
                    }
                    let missing = (0..<(devices * perDevice)).filter { seen["\(pipeline.device($0 % devices))/n\($0)#0"] == nil }
                    let twice = seen.filter { $0.value > 1 }
                    #expect(missing.isEmpty, "round \(round): \(missing.count) occurrences never reached an inbox")
                    #expect(twice.isEmpty, "round \(round): \(twice.count) occurrences reached an inbox twice")
                }
            }
        }
    }

    @Test("A cancel answered 204 before its instant never fires (10 rounds of 100 one-shots 4 ms apart)",
          .timeLimit(.minutes(3)))
    func cancelRacingFiring() async throws {
        try await withScratch { scratch in
            try await withServer(in: scratch) { server in
                let pipeline = Pipeline(server: server)
                try await pipeline.register(devices: 10)
                for round in 0..<10 {
                    let device = pipeline.device(round)
                    let start = Date().addingTimeInterval(1.5)
                    let items = (0..<100).map { (device: device, id: "c\($0)", at: start.addingTimeInterval(Double($0) * 0.004)) }
                    try await pipeline.schedule(items)
                    try #require(Date() < start.addingTimeInterval(-0.1), "round \(round): scheduling took longer than the lead")
                    // Each cancel goes out about 13 ms before its instant.
                    let cancelled = try await withThrowingTaskGroup(of: String?.self) { group in
                        for item in items {
                            group.addTask {
                                try await Task.sleep(for: .seconds(max(0, item.at.addingTimeInterval(-0.013).timeIntervalSinceNow)))
                                let reply = try await http("DELETE", pipeline.path(device) + "/notifications/\(item.id)")
                                return reply.status == 204 ? item.id : nil
                            }
                        }
                        var ids = Set<String>()
                        for try await id in group { if let id { ids.insert(id) } }
                        return ids
                    }
                    try await Task.sleep(for: .milliseconds(500))
                    let fired = try await pipeline.settled(device, count: 100 - cancelled.count) ?? []
                    let firedIDs = Set(fired.compactMap { $0.string("notificationId") })
                    #expect(firedIDs.isDisjoint(with: cancelled),
                            "round \(round): fired after their DELETE answered 204: \(firedIDs.intersection(cancelled).sorted())")
                    #expect(firedIDs.count + cancelled.count == 100,
                            "round \(round): every one-shot either fired or was cancelled, once")
                }
            }
        }
    }

    @Test("A peer that answers one group slowly does not delay pushes due a second later for other devices")
    func slowPeerDelaysNothingElse() async throws {
        try await withScratch { scratch in
            // The set-up makes 160 requests with one key: lift its rate limit.
            let yaml = SandboxedHerald.configuration(in: scratch) + "limits:\n  ratePerSecond: 10000\n  rateBurst: 10000\n"
            try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                let token = { (index: Int) in WebhookE2E.token(0x5000 + index) }
                for index in 0..<80 {
                    let reply = try await herald.api("PUT", "/v1/apps/\(WebhookE2E.app)/devices/d\(index)",
                                                     json: ["timeZone": "UTC", "token": token(index)])
                    try #require(reply.status == 201, "\(reply.text)")
                }
                // Open the connection and let the sandbox raise its stream limit first.
                #expect(try await herald.push(to: WebhookE2E.token(0x4fff)).int("status") == 200)
                let first = Date().addingTimeInterval(3)
                let second = first.addingTimeInterval(1)
                for index in 0..<80 {
                    let reply = try await herald.api("POST", "/v1/apps/\(WebhookE2E.app)/devices/d\(index)/notifications",
                                                     json: ["id": "g\(index)", "fireDate": utcMilliseconds(index < 40 ? first : second),
                                                            "alert": ["body": "group \(index < 40 ? 1 : 2)"]])
                    try #require(reply.status == 201, "\(reply.text)")
                }
                // From now on the sandbox holds every answer for 3 s.
                let faults = try await keyedHTTP("PUT", herald.sandboxAdmin + "/faults", json: ["latencyMilliseconds": 3000])
                try #require(faults.status == 200, "\(faults.text)")
                try #require(Date() < first.addingTimeInterval(-0.3), "setting up took longer than the lead")
                let arrivals = try #require(try await eventually(timeout: .seconds(15)) { () -> [Date]? in
                    var found: [Date] = []
                    for index in 40..<80 {
                        guard let entry = try await herald.inbox(token(index)).first,
                              let at = instant(entry.string("receivedAt")) else { return nil }
                        found.append(at)
                    }
                    return found
                }, "the second group never reached the sandbox")
                let worst = arrivals.map { $0.timeIntervalSince(second) }.max() ?? 0
                #expect(worst < 0.5, "pushes due 1 s after a slow group reached the peer \(worst) s late")
            }
        }
    }

    @Test("SIGTERM mid-burst stores what was delivered; after a restart nothing that succeeded is sent again (10 rounds)",
          .timeLimit(.minutes(5)))
    func sigtermThenRestartResendsNothing() async throws {
        for round in 1...10 {
            try await withScratch { scratch in
                let (sandbox, sandboxPort, admin) = try await startSandbox(in: scratch)
                defer { sandbox.signal(SIGKILL) }
                let slow = try await keyedHTTP("PUT", admin + "/faults", json: ["latencyMilliseconds": 150])
                try #require(slow.status == 200, "\(slow.text)")
                let arguments = ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory]
                let devices = 3
                let perDevice = 40
                let token = { (index: Int) in WebhookE2E.token(0x6000 + index) }
                try await withServer(arguments: arguments, in: scratch) { server in
                    let pipeline = Pipeline(server: server)
                    try await pipeline.register(devices: devices, push: [
                        "environment": "https://127.0.0.1:\(sandboxPort)", "caFile": WebhookE2E.certificates + "/dev-ca.pem",
                        "auth": ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001",
                                 "keyFile": WebhookE2E.certificates + "/dev-apns-key.p8"],
                    ], token: token)
                    let start = Date().addingTimeInterval(2)
                    let items = (0..<(devices * perDevice)).map {
                        (device: pipeline.device($0 % devices), id: "s\($0)", at: start.addingTimeInterval(Double($0) / 120))
                    }
                    try await pipeline.schedule(items)
                    try #require(Date() < start, "round \(round): scheduling took longer than the lead")
                    try await Task.sleep(for: .seconds(max(0, start.addingTimeInterval(0.5).timeIntervalSinceNow)))
                    server.child.signal(SIGTERM)
                    let status = await server.child.waitForExit(timeout: .seconds(20))
                    #expect(status == 0, "round \(round): SIGTERM should end the server cleanly, not \(String(describing: status))")
                }
                try await withServer(arguments: arguments, in: scratch) { server in
                    let pipeline = Pipeline(server: server)
                    for index in 0..<devices {
                        let fired = try await pipeline.settled(pipeline.device(index), count: perDevice)
                        #expect(fired?.count == perDevice, "round \(round): \(fired?.count ?? -1) deliveries")
                    }
                    for index in 0..<devices {
                        let received = try await keyedHTTP("GET", admin + "/inbox/\(token(index))").json.objects("notifications")
                        let collapseIDs = received.compactMap { $0.string("collapseId") }
                        #expect(received.count == perDevice,
                                "round \(round), device \(index): the sandbox received \(received.count) pushes, not \(perDevice)")
                        #expect(Set(collapseIDs).count == collapseIDs.count, "round \(round): a push was sent twice")
                    }
                }
            }
        }
    }
    @Test("kill -9 mid-burst of 1,000 scheduled Live Activity updates and channel broadcasts, then restart: nothing lost, nothing repeated without its apns-collapse-id (10 rounds)",
          .timeLimit(.minutes(8)))
    func killMidLiveActivityBurstLosesNothing() async throws {
        let burst = LiveActivityBurst(devices: 8, channels: 8)
        for round in 1...10 {
            try await withScratch { scratch in
                let (sandbox, sandboxPort, admin) = try await startSandbox(in: scratch)
                defer { sandbox.signal(SIGKILL) }
                let arguments = ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory]
                var channelIDs: [String: String] = [:]
                var items: [LiveActivityBurst.Item] = []
                try await withServer(arguments: arguments, in: scratch) { server in
                    channelIDs = try await burst.setUp(bases: [server.baseURL], sandboxURL: "https://127.0.0.1:\(sandboxPort)")
                    let start = Date().addingTimeInterval(6)
                    items = burst.items(count: 1_000, start: start, spread: 1)
                    try await burst.schedule(items, bases: [server.baseURL])
                    try #require(Date() < start, "round \(round): scheduling took longer than the lead")
                    try await Task.sleep(for: .seconds(max(0, start.addingTimeInterval(0.5).timeIntervalSinceNow)))
                    try await server.crash()
                }
                try await withServer(arguments: arguments, in: scratch) { _ in
                    let expected = Set(items.map(\.expectedKey))
                    let received = try await eventually(timeout: .seconds(60), interval: .milliseconds(500)) { () -> [String: Int]? in
                        let received = try await burst.received(sandboxAdmin: admin, channelIDs: channelIDs)
                        return Set(received.keys).isSuperset(of: expected) ? received : nil
                    }
                    let got = try #require(received, "round \(round): not every update and broadcast reached the sandbox")
                    // A push in flight at the kill may go again, with the same collapse id: the
                    // device shows it once. Nothing else may arrive.
                    #expect(Set(got.keys) == expected, "round \(round): pushes arrived that were never scheduled")
                    print("round \(round): \(got.values.filter { $0 > 1 }.count) pushes repeated, each with its collapse id")
                }
            }
        }
    }
}
