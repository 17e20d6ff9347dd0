import Foundation
import HeraldHTTP2
import HeraldTestSupport
import Testing

/// Interoperability with HTTP/2 implementations we did not write (nghttp2's own tools).
@Suite("Interop with nghttpd and nghttp", .serialized)
struct InteropTests {
    /// Starts nghttpd on a free port with the dev certificate; nil (the test failed) if it did not start.
    private func startNghttpd(docroot: String, extra: [String] = []) async throws -> (ExternalProcess, Int)? {
        let nghttpd = try requireExecutable("nghttpd", debianPackage: "nghttp2-server")
        let port = try unusedLoopbackPort()
        let process = try ExternalProcess(nghttpd, ["--address=127.0.0.1", "-d", docroot, "--echo-upload"] + extra +
                                          ["\(port)", Certs.path("sandbox-server.key"), Certs.path("sandbox-server.pem")])
        guard await waitForPort(port) else {
            let log = (try? String(contentsOfFile: process.output, encoding: .utf8)) ?? ""
            process.stop()
            Issue.record("nghttpd did not start: \(log)")
            return nil
        }
        return (process, port)
    }

    private func makeDocroot() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-h2-docroot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("hello from nghttpd\n".utf8).write(to: directory.appendingPathComponent("hello.txt"))
        try Data(repeating: 0x5a, count: 1 << 20).write(to: directory.appendingPathComponent("big.bin"))
        return directory.path
    }

    @Test("our client talks to nghttpd: GET, echoed 1 MiB POST, 1000 concurrent requests")
    func clientAgainstNghttpd() async throws {
        let docroot = try makeDocroot()
        defer { try? FileManager.default.removeItem(atPath: docroot) }
        guard let (nghttpd, port) = try await startNghttpd(docroot: docroot) else { return }
        defer { nghttpd.stop() }

        let client = try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: port, tls: Certs.clientTLS, timeout: .seconds(5))
        defer { client.close() }
        #expect(client.maxConcurrentStreams == 100, "nghttpd's default limit")

        let hello = try await client.send(HTTP2Request(path: "/hello.txt", authority: "127.0.0.1:\(port)"), timeout: .seconds(5))
        #expect(hello.status == 200)
        #expect(String(decoding: hello.body, as: UTF8.self) == "hello from nghttpd\n")

        let missing = try await client.send(HTTP2Request(path: "/missing", authority: "127.0.0.1:\(port)"), timeout: .seconds(5))
        #expect(missing.status == 404)

        let big = try await client.send(HTTP2Request(path: "/big.bin", authority: "127.0.0.1:\(port)"), timeout: .seconds(10))
        #expect(big.body.count == 1 << 20)

        let upload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let echoed = try await client.send(HTTP2Request(method: "POST", path: "/echo", authority: "127.0.0.1:\(port)", body: upload),
                                           timeout: .seconds(10))
        #expect(echoed.status == 200)
        #expect(echoed.body == upload)

        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    let response = try await client.send(HTTP2Request(path: "/hello.txt", authority: "127.0.0.1:\(port)"), timeout: .seconds(30))
                    return response.status == 200
                }
            }
            var ok = 0
            for try await success in group where success { ok += 1 }
            return ok
        }
        #expect(ok == 1000)
    }

    @Test("nghttpd's small MAX_CONCURRENT_STREAMS is honoured (requests queue instead of being refused)")
    func nghttpdStreamLimit() async throws {
        let docroot = try makeDocroot()
        defer { try? FileManager.default.removeItem(atPath: docroot) }
        guard let (nghttpd, port) = try await startNghttpd(docroot: docroot, extra: ["--max-concurrent-streams=2"]) else { return }
        defer { nghttpd.stop() }
        let client = try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: port, tls: Certs.clientTLS, timeout: .seconds(5))
        defer { client.close() }
        #expect(client.maxConcurrentStreams == 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    let response = try await client.send(HTTP2Request(path: "/hello.txt", authority: "127.0.0.1:\(port)"), timeout: .seconds(30))
                    #expect(response.status == 200)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("the nghttp client talks to our server, including an uploaded body")
    func nghttpAgainstServer() async throws {
        let nghttp = try requireExecutable("nghttp", debianPackage: "nghttp2-client")
        let tally = Tally()
        let upload = FileManager.default.temporaryDirectory.appendingPathComponent("herald-h2-upload-\(UUID().uuidString)")
        try Data(repeating: 0x41, count: 300_000).write(to: upload)
        defer { try? FileManager.default.removeItem(at: upload) }
        try await withServer(handler: { request, _ in
            tally.record("\(request.method) \(request.path) \(request.body.count)")
            return HTTP2Response(status: 200, headers: [("content-type", "text/plain")], body: Array("ok \(request.path)\n".utf8))
        }) { server in
            let base = "https://127.0.0.1:\(server.port)"
            let get = try await runCommand(nghttp, ["-n", "-m", "20", "\(base)/from-nghttp"])
            #expect(get.status == 0, "nghttp output: \(get.output)")
            let post = try await runCommand(nghttp, ["-n", "-d", upload.path, "\(base)/upload"])
            #expect(post.status == 0, "nghttp output: \(post.output)")
            let counts = tally.snapshot
            #expect(counts["GET /from-nghttp 0"] == 20, "\(counts)")
            #expect(counts["POST /upload 300000"] == 1, "\(counts)")
        }
    }
}
