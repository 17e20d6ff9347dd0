import Foundation
import HeraldCore
import HeraldHTTP2
import HeraldPush
import Synchronization

/// The child-process side of the push benchmark: Herald's APNs client sending `pushes` pushes to
/// the sandbox, in a fresh process so its resident memory is this work's alone.
///
/// `APNsClient` is what `PushGateway` sends each push through (connection pool, provider token,
/// retries); it is driven in batches, as `PushGateway.send` drives it: a few batches in flight per
/// connection (connections × streams pushes in flight), each push timed from its batch's call to
/// the batch's outcomes. Resident memory is read when a tenth of the pushes are done and again at the end.
/// Every push carries the template's `apns-id`, as h2load repeats one header set: both sides send
/// the same constant request.
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
        // All clients share one set of event loops (one per core), as the gateway's apps do.
        let loops = HTTP2EventLoops(name: "push-probe")
        let clients = try (0..<connections).map { _ in
            try APNsClient(appID: PushFixture.bundleID, settings: settings, poolSize: 1, loops: loops)
        }
        let tenth = max(1, total / 10)
        let counter = ProbeCounter(total: total, tenth: tenth)

        // Each connection is kept at `streams` in flight by `lanesPerConnection` batches; a lane
        // sends its next batch when the last one is answered. No task per push.
        let batch = max(1, streams / lanesPerConnection)
        let stopwatch = Stopwatch()
        await withTaskGroup(of: Void.self) { group in
            for client in clients {
                for _ in 0..<lanesPerConnection {
                    group.addTask {
                        while let range = counter.take(batch) {
                            let pushes = range.map { templates[$0 % templates.count] }
                            let start = ContinuousClock.now
                            let outcomes = await client.send(pushes, timeout: timeout)
                            let elapsed = ContinuousClock.now - start
                            counter.record(outcomes, seconds: Double(elapsed.components.seconds)
                                + Double(elapsed.components.attoseconds) / 1e18)
                        }
                    }
                }
            }
        }
        let seconds = stopwatch.seconds
        let residentAtEnd = ResidentMemory.bytes() ?? 0
        var open = 0
        for client in clients {
            open += client.openConnections
            await client.close()
        }
        await loops.shutdown()
        let tally = counter.tally
        return Result(pushes: total, seconds: seconds, succeeded: tally.succeeded, failures: tally.failures,
                      latency: tally.latency, connections: open, residentAtTenth: tally.residentAtTenth,
                      residentAtEnd: residentAtEnd)
    }

    /// Batches in flight per connection; together they keep `streams` requests on the wire.
    static let lanesPerConnection = 4
}

/// Hands out push numbers to the lanes and tallies their outcomes (one lock per batch).
private final class ProbeCounter: Sendable {
    struct Tally {
        var next = 0
        var done = 0
        var succeeded = 0
        var failures: [String: Int] = [:]
        var latency = LatencyHistogram()
        var residentAtTenth = 0
    }

    private let total: Int
    private let tenth: Int
    private let state = Mutex(Tally())

    init(total: Int, tenth: Int) {
        self.total = total
        self.tenth = tenth
    }

    var tally: Tally { state.withLock { $0 } }

    func take(_ count: Int) -> Range<Int>? {
        state.withLock { state in
            guard state.next < total else { return nil }
            let range = state.next..<min(total, state.next + count)
            state.next = range.upperBound
            return range
        }
    }

    /// Every push of a batch is answered when the batch is: its time is each push's time.
    func record(_ outcomes: [PushOutcome], seconds: Double) {
        let crossedTenth = state.withLock { state -> Bool in
            let before = state.done
            state.done += outcomes.count
            for outcome in outcomes {
                if outcome.succeeded {
                    state.succeeded += 1
                    state.latency.record(seconds)
                } else {
                    let failure = "\(outcome.status):\(outcome.reason ?? "-")".map { $0.isLetter || $0.isNumber || $0 == ":" ? $0 : "_" }
                    state.failures[String(failure), default: 0] += 1
                }
            }
            return before < tenth && state.done >= tenth
        }
        if crossedTenth {
            let resident = ResidentMemory.bytes() ?? 0
            state.withLock { $0.residentAtTenth = resident }
        }
    }
}
