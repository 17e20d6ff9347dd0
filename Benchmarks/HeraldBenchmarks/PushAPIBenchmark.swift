import Foundation
import HeraldTestSupport

/// `POST /v1/push` with 1,000 tokens per request, through a real `herald serve`, to nghttpd,
/// beside Herald's APNs client alone (push-probe) sending to the same nghttpd over as many
/// connections as the server's gateway opens (2 per app): what the HTTP API, JSON, the ledger
/// lookup and the gateway add to the client.
enum PushAPIBenchmark {
    static let goalRatio = 0.7
    static let batch = 1000
    /// Requests in flight at once; each carries `batch` pushes.
    static let concurrentRequests = 2

    static func run(herald: String, nghttpdPort: Int, certificates: String, options: Options) throws -> [ResultRow] {
        let requests = max(2, options.pushes / batch)
        let pushes = requests * batch
        let scratch = (options.scratch as NSString).appendingPathComponent("push-api-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        progress("push API: client alone (push-probe), 2 connections × 100 streams, \(Format.grouped(pushes)) pushes")
        let alone = try PushProbe.Result(parsing: ChildProcess.runSelf([
            "push-probe", "--port", "\(nghttpdPort)", "--certs", certificates, "--connections", "2",
            "--streams", "100", "--pushes", "\(pushes)", "--push-timeout", "\(options.pushTimeout)",
        ]))

        let port = try unusedLoopbackPort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: herald)
        server.arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--data-dir", (scratch as NSString).appendingPathComponent("data")]
        server.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HERALD_") }
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        try waitUntilHealthy(port: port, server: server)

        let key = try String(contentsOfFile: "\(certificates)/dev-apns-key.p8", encoding: .utf8)
        let app: [String: Any] = ["push": [
            "environment": "https://127.0.0.1:\(nghttpdPort)", "caFile": "\(certificates)/dev-ca.pem",
            "auth": ["type": "token", "teamId": PushFixture.teamID, "keyId": PushFixture.keyID, "key": key],
        ]]
        let setup = try HTTPConnection(port: port).request("PUT", "/v1/apps/\(PushFixture.bundleID)", body: try json(app))
        guard setup.status == 200 || setup.status == 201 else {
            throw OptionsError("PUT app answered \(setup.status): \(String(decoding: setup.body, as: UTF8.self))")
        }
        let body = try json(["notifications": [[
            "app": PushFixture.bundleID, "type": "alert", "tokens": PushFixture.batchTokens,
            "aps": ["alert": ["title": "Herald benchmark", "body": "Your 07:30 alarm is ringing"], "badge": 1, "sound": "default"],
        ] as [String: Any]]])
        // One warm-up request opens the gateway's connections.
        _ = try HTTPConnection(port: port).request("POST", "/v1/push", body: body)

        progress("push API: POST /v1/push, \(batch) tokens per request, \(concurrentRequests) in flight, \(Format.grouped(pushes)) pushes")
        let tally = Tally()
        let stopwatch = Stopwatch()
        DispatchQueue.concurrentPerform(iterations: concurrentRequests) { lane in
            guard let connection = try? HTTPConnection(port: port) else { return }
            for _ in stride(from: lane, to: requests, by: concurrentRequests) {
                guard let response = try? connection.request("POST", "/v1/push", body: body), response.status == 200 else {
                    tally.add(succeeded: 0)
                    continue
                }
                tally.add(succeeded: occurrences(of: succeededMarker, in: response.body))
            }
        }
        let seconds = stopwatch.seconds
        let succeeded = tally.succeeded
        let rate = Double(succeeded) / seconds
        let ratio = rate / alone.rate
        progress(String(format: "push API: %.0f pushes/s through /v1/push (%d of %d succeeded); client alone %.0f pushes/s",
                        rate, succeeded, pushes, alone.rate))
        return [ResultRow(
            benchmark: "push → nghttpd through POST /v1/push, \(batch) tokens per request, \(concurrentRequests) in flight, \(Format.count(pushes)) pushes",
            measured: "\(Format.rate(rate, unit: "pushes/s")) (\(pushes - succeeded) failed)",
            reference: "\(Format.rate(alone.rate, unit: "pushes/s")) APNsClient alone, 2 connections × 100 streams",
            ratio: ratio, goal: "≥ 0.70× the client alone",
            met: pushes >= PushBenchmark.goalMinimumPushes ? (ratio >= goalRatio && succeeded == pushes) : nil)]
    }

    private static let succeededMarker = Array("\"status\":200".utf8)

    /// How often `needle` occurs in `bytes`: the answer's successful results, counted without
    /// decoding 1,000 rows per request on the same two cores as the server.
    private static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> Int {
        guard let first = needle.first, bytes.count >= needle.count else { return 0 }
        var count = 0, index = 0
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) {
                count += 1
                index += needle.count
            } else {
                index += 1
            }
        }
        return count
    }

    private static func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    private static func waitUntilHealthy(port: Int, server: Process) throws {
        let started = Date()
        while Date().timeIntervalSince(started) < 30 {
            guard server.isRunning else { throw OptionsError("herald serve exited with \(server.terminationStatus)") }
            if let response = try? HTTPConnection(port: port).request("GET", "/healthz"), response.status == 200 { return }
            usleep(50_000)
        }
        throw OptionsError("herald serve did not become healthy on port \(port)")
    }

    private final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var total = 0

        func add(succeeded: Int) {
            lock.lock()
            total += succeeded
            lock.unlock()
        }

        var succeeded: Int {
            lock.lock()
            defer { lock.unlock() }
            return total
        }
    }
}
