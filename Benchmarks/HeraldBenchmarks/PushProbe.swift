import Foundation
import HeraldCore
import HeraldPush

/// The child-process side of the push benchmark: Herald's APNs client sending `pushes` pushes to
/// the sandbox, in a fresh process so its resident memory is this work's alone.
///
/// `APNsClient` is what `PushGateway` sends each push through (connection pool, provider token,
/// retries); it is driven here the way `PushGateway.send` drives it, with a sliding window of
/// tasks (connections × streams in flight), and each push's round trip is timed from the call to
/// its outcome. Resident memory is read when a tenth of the pushes are done and again at the end.
///
/// One app's pool opens a second connection only when the first is full (the sandbox allows
/// 1,000 streams, as APNs does), so 400 pushes in flight for one app ride one connection. To
/// measure 4 connections, as h2load -c4 opens, there is one client per connection (as for 4
/// apps), each with its own pool of one, and push `i` goes to client `i mod connections`.
enum PushProbe {
    struct Result: Sendable {
        var pushes: Int
        var seconds: Double
        var succeeded: Int
        var failures: [String: Int]
        var latency: LatencyHistogram
        var connections: Int
        var residentAtTenth: Int
        var residentAtEnd: Int

        var rate: Double { Double(succeeded) / seconds }

        var line: String {
            let failureText = failures.isEmpty ? "-" : failures.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ";")
            return "PUSHPROBE \(pushes) \(seconds) \(succeeded) \(connections) \(residentAtTenth) \(residentAtEnd) \(failureText) \(latency.encoded)"
        }

        init(pushes: Int, seconds: Double, succeeded: Int, failures: [String: Int], latency: LatencyHistogram,
             connections: Int, residentAtTenth: Int, residentAtEnd: Int) {
            self.pushes = pushes
            self.seconds = seconds
            self.succeeded = succeeded
            self.failures = failures
            self.latency = latency
            self.connections = connections
            self.residentAtTenth = residentAtTenth
            self.residentAtEnd = residentAtEnd
        }

        init(parsing output: String) throws {
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("PUSHPROBE ") }) else {
                throw OptionsError("push-probe printed no result")
            }
            let fields = line.split(separator: " ")
            guard fields.count == 9, let pushes = Int(fields[1]), let seconds = Double(fields[2]),
                  let succeeded = Int(fields[3]), let connections = Int(fields[4]), let tenth = Int(fields[5]),
                  let end = Int(fields[6]), let latency = LatencyHistogram(encoded: fields[8]) else {
                throw OptionsError("unreadable push-probe result")
            }
            var failures: [String: Int] = [:]
            if fields[7] != "-" {
                for pair in fields[7].split(separator: ";") {
                    let parts = pair.split(separator: "=")
                    if parts.count == 2 { failures[String(parts[0])] = Int(parts[1]) ?? 0 }
                }
            }
            self.init(pushes: pushes, seconds: seconds, succeeded: succeeded, failures: failures, latency: latency,
                      connections: connections, residentAtTenth: tenth, residentAtEnd: end)
        }
    }

    static func main(_ options: Options) async throws {
        let result = try await run(port: options.port, certificates: options.certificates, connections: options.connections,
                                   streams: options.streams, pushes: options.pushes, timeout: .seconds(options.pushTimeout))
        print(result.line)
    }

    /// - Parameter timeout: each push's limit, retries included (`PushGateway`'s default is 30 s).
    static func run(port: Int, certificates: String, connections: Int, streams: Int, pushes total: Int,
                    timeout: Duration) async throws -> Result {
        let templates = try (0..<PushFixture.tokens.count).map { try PushFixture.push(token: $0) }
        let settings = PushFixture.settings(port: port, certificates: certificates)
        let clients = try (0..<connections).map { _ in
            try APNsClient(appID: PushFixture.bundleID, settings: settings, poolSize: 1)
        }
        let window = connections * streams
        let tenth = max(1, total / 10)
        var latency = LatencyHistogram()
        var succeeded = 0
        var failures: [String: Int] = [:]
        var residentAtTenth = 0
        var done = 0

        let stopwatch = Stopwatch()
        await withTaskGroup(of: (Double, Int, String?).self) { group in
            var started = 0
            func startNext() {
                guard started < total else { return }
                var push = templates[started % templates.count]
                push.id = UUID().uuidString.lowercased()
                let client = clients[started % clients.count]
                started += 1
                group.addTask {
                    let start = ContinuousClock.now
                    let outcome = await client.send(push, timeout: timeout)
                    let elapsed = ContinuousClock.now - start
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    let failure = "\(outcome.status):\(outcome.reason ?? "-")".map { $0.isLetter || $0.isNumber || $0 == ":" ? $0 : "_" }
                    return (seconds, outcome.status, outcome.succeeded ? nil : String(failure))
                }
            }
            for _ in 0..<window { startNext() }
            for await (seconds, _, failure) in group {
                done += 1
                if let failure {
                    failures[failure, default: 0] += 1
                } else {
                    succeeded += 1
                    latency.record(seconds)
                }
                if done == tenth { residentAtTenth = ResidentMemory.bytes() ?? 0 }
                startNext()
            }
        }
        let seconds = stopwatch.seconds
        let residentAtEnd = ResidentMemory.bytes() ?? 0
        var open = 0
        for client in clients {
            open += await client.openConnections
            await client.close()
        }
        return Result(pushes: total, seconds: seconds, succeeded: succeeded, failures: failures, latency: latency,
                      connections: open, residentAtTenth: residentAtTenth, residentAtEnd: residentAtEnd)
    }
}
