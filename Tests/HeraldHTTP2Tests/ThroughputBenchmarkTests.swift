import Foundation
import HeraldHTTP2
import Testing

/// Compares our client's request rate with h2load's on the same nghttpd, same concurrency.
/// Opt-in (HERALD_H2_BENCH=1) because timing on a shared machine is not a pass/fail signal.
@Suite("Throughput against h2load", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["HERALD_H2_BENCH"] != nil))
struct ThroughputBenchmarkTests {
    static let requests = 50_000
    static let concurrency = 100

    @Test("our client's request rate approaches h2load's on one connection")
    func compareWithH2load() async throws {
        guard let nghttpd = findExecutable("nghttpd"), let h2load = findExecutable("h2load") else {
            print("⚠️⚠️⚠️ SKIPPED: nghttpd/h2load not installed; throughput NOT measured")
            return
        }
        let docroot = FileManager.default.temporaryDirectory.appendingPathComponent("herald-h2-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: docroot, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: docroot) }
        try Data("ok".utf8).write(to: docroot.appendingPathComponent("ok"))
        let port = freePort()
        let server = try ExternalProcess(nghttpd, ["--address=127.0.0.1", "-d", docroot.path, "--max-concurrent-streams=\(Self.concurrency)",
                                                   "\(port)", Certs.path("sandbox-server.key"), Certs.path("sandbox-server.pem")])
        defer { server.stop() }
        #expect(await waitForPort(port))

        let reference = try await runCommand(h2load, ["-n", "\(Self.requests)", "-c", "1", "-m", "\(Self.concurrency)",
                                                      "https://127.0.0.1:\(port)/ok"])
        let h2loadRate = reference.output.split(separator: "\n").first { $0.contains("finished in") }.map(String.init) ?? reference.output
        print("h2load: \(h2loadRate)")

        let client = try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: port, tls: Certs.clientTLS, timeout: .seconds(5))
        defer { client.close() }
        let request = HTTP2Request(path: "/ok", authority: "127.0.0.1:\(port)")
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask {
                    for _ in 0..<(Self.requests / Self.concurrency) {
                        _ = try await client.send(request, timeout: .seconds(30))
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("HeraldHTTP2 client: \(Self.requests) requests in \(elapsed), \(Int(Double(Self.requests) / seconds)) req/s")

        // Our own server, measured by h2load, for the server side.
        try await withServer(settings: HTTP2ServerSettings(maxConcurrentStreams: Self.concurrency), handler: { _, _ in
            HTTP2Response(status: 200, body: Array("ok".utf8))
        }) { ours in
            let result = try await runCommand(h2load, ["-n", "\(Self.requests)", "-c", "1", "-m", "\(Self.concurrency)",
                                                       "https://127.0.0.1:\(ours.port)/ok"])
            let line = result.output.split(separator: "\n").first { $0.contains("finished in") }.map(String.init) ?? result.output
            print("h2load against HTTP2Server: \(line)")
        }
    }
}
