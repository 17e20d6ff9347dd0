import Foundation
import HeraldTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

// Support for the webhook end-to-end tests: `herald serve` with its APNs sandbox beside it, and a
// feedback receiver run as a separate process (a few lines of Python's http.server) that writes
// every request it gets to a file.

enum WebhookE2E {
    static let adminKey = "e2e-admin-key-1a2b3c4d5e"
    static let app = "com.example.alarm"
    static let hookSecret = "whsec-e2e-orders-0123456789"
    static let feedbackSecret = "e2e-feedback-secret-5e6f7a8b"

    /// The repository's `Certs/`.
    static let certificates = TestCertificates.directory

    /// A device token: 32 bytes of hex, one per seed.
    static func token(_ seed: Int) -> String { testDeviceToken(seed, family: 0xe2) }
}

/// HTTP with any method, raw body, API key and headers; the reply's headers too.
struct KeyedReply: Sendable {
    var status: Int
    var body: Data
    var headers: [String: String]

    var json: JSONObject { HTTPReply(status: status, body: body).json }
    var text: String { String(decoding: body, as: UTF8.self) }
}

func keyedHTTP(_ method: String, _ url: String, json: [String: Any]? = nil, body: Data? = nil, key: String? = nil,
               headers: [String: String] = [:]) async throws -> KeyedReply {
    var request = URLRequest(url: URL(string: url)!, timeoutInterval: 10)
    request.httpMethod = method
    if let payload = try json.map({ try JSONSerialization.data(withJSONObject: $0) }) ?? body {
        request.httpBody = payload
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = response as? HTTPURLResponse
    var fields: [String: String] = [:]
    for (name, value) in http?.allHeaderFields ?? [:] {
        if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
    }
    return KeyedReply(status: http?.statusCode ?? 0, body: data, headers: fields)
}

/// `herald serve` with `sandbox.enabled`, the demo app pushing into it, and an admin key.
final class SandboxedHerald: @unchecked Sendable {
    let server: ServerProcess
    /// The sandbox's admin API, `http://127.0.0.1:PORT`.
    let sandboxAdmin: String

    var baseURL: String { server.baseURL }
    var pid: Int32 { server.child.pid }

    private init(server: ServerProcess, sandboxAdmin: String) {
        self.server = server
        self.sandboxAdmin = sandboxAdmin
    }

    /// The YAML for a server on `scratch`'s data directory; `feedbackURL` turns feedback on.
    static func configuration(in scratch: Scratch, feedbackURL: String? = nil, feedbackMaxAttempts: Int = 50) -> String {
        var yaml = """
            listen: 127.0.0.1:0
            dataDir: \(scratch.dataDirectory)
            logLevel: error
            auth:
              adminKeys: \(WebhookE2E.adminKey)
            sandbox:
              enabled: true
              listen: 127.0.0.1:0
              admin: 127.0.0.1:0
              certsDir: \(WebhookE2E.certificates)
              demoApp: \(WebhookE2E.app)

            """
        if let feedbackURL {
            yaml += """
                feedback:
                  urls: \(feedbackURL)
                  secret: \(WebhookE2E.feedbackSecret)
                  maxAttempts: \(feedbackMaxAttempts)

                """
        }
        return yaml
    }

    /// Starts the server from `yaml` (written into the scratch directory).
    static func start(yaml: String, environment: [String: String] = [:], in scratch: Scratch) async throws -> SandboxedHerald {
        let file = scratch.file("herald-\(UUID().uuidString).yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let server = try await ServerProcess.start(arguments: ["--config", file.path], environment: environment, in: scratch)
        guard let admin = sandboxAdminURL(in: server.child.stdout) else {
            await server.stop()
            throw EndToEndFailure("no sandbox line in the server's output:\n\(server.child.stdout)")
        }
        return SandboxedHerald(server: server, sandboxAdmin: admin)
    }

    /// From `herald sandbox listening on https://H:P (inboxes at http://H:A/inbox)`.
    static func sandboxAdminURL(in output: String) -> String? {
        for line in output.split(separator: "\n") where line.hasPrefix("herald sandbox listening on") {
            guard let start = line.range(of: "(inboxes at "), let end = line.range(of: "/inbox)") else { continue }
            return String(line[start.upperBound..<end.lowerBound])
        }
        return nil
    }

    /// A request to the Herald API with the admin key.
    func api(_ method: String, _ path: String, json: [String: Any]? = nil, key: String? = WebhookE2E.adminKey) async throws -> KeyedReply {
        try await keyedHTTP(method, baseURL + path, json: json, key: key)
    }

    /// Makes the sandbox answer 410 Unregistered for these tokens.
    func unregister(_ tokens: [String]) async throws {
        let reply = try await keyedHTTP("PUT", sandboxAdmin + "/faults", json: ["unregistered": tokens])
        try #require(reply.status == 200, "PUT /faults: \(reply.text)")
    }

    /// What the sandbox device with `token` received, oldest first.
    func inbox(_ token: String) async throws -> [JSONObject] {
        let reply = try await keyedHTTP("GET", sandboxAdmin + "/inbox/\(token)")
        try #require(reply.status == 200, "GET inbox: \(reply.text)")
        return reply.json.objects("notifications")
    }

    /// Pushes an alert to `token` through `POST /v1/push`; returns the result row.
    func push(to token: String) async throws -> JSONObject {
        let reply = try await api("POST", "/v1/push", json: ["notifications": [
            ["app": WebhookE2E.app, "tokens": [token], "aps": ["alert": ["title": "Hi", "body": "there"]]],
        ]])
        try #require(reply.status == 200, "POST /v1/push: \(reply.text)")
        return reply.json.objects("results").first ?? JSONObject([:])
    }

    /// The feedback outbox, optionally in one state.
    func outbox(state: String? = nil) async throws -> [JSONObject] {
        let reply = try await api("GET", "/v1/feedback/outbox" + (state.map { "?state=\($0)" } ?? ""))
        try #require(reply.status == 200, "GET outbox: \(reply.text)")
        return reply.json.objects("messages")
    }

    /// How long the server's threads have been running or waiting to run, in nanoseconds, summed
    /// over its threads (`/proc/PID/task/*/schedstat`). A process that only sleeps adds almost
    /// nothing; one that spins adds about the wall time even when other processes starve it of CPU.
    func busyNanoseconds() throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        var total = 0
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8) else { continue }
            let fields = text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            // CPU time only: time spent waiting for a CPU measures the machine's load, not polling.
            if fields.count >= 1 { total += fields[0] }
        }
        return total
    }

    func stop() async { await server.stop() }
    func crash() async throws { try await server.crash() }
}

/// Starts a sandboxed server, runs `body`, and always stops it.
func withSandboxedHerald<Value>(yaml: String, environment: [String: String] = [:], in scratch: Scratch,
                               _ body: (SandboxedHerald) async throws -> Value) async throws -> Value {
    let herald = try await SandboxedHerald.start(yaml: yaml, environment: environment, in: scratch)
    do {
        let value = try await body(herald)
        await herald.stop()
        return value
    } catch {
        await herald.stop()
        throw error
    }
}

/// A feedback receiver in its own process: Python's http.server answering 200 to every POST and
/// appending each request, as one JSON line, to a file.
final class FeedbackListener: @unchecked Sendable {
    struct Received: Sendable {
        var path: String
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? { headers[name.lowercased()] }
        var json: JSONObject { HTTPReply(status: 200, body: body).json }
    }

    let port: Int
    private let logURL: URL
    private let child: SpawnedProcess

    private static let script = #"""
        import base64, http.server, json, sys
        port, path = int(sys.argv[1]), sys.argv[2]
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_POST(self):
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    body = b""
                    while True:
                        size = int(self.rfile.readline().strip(), 16)
                        chunk = self.rfile.read(size)
                        self.rfile.readline()
                        if size == 0:
                            break
                        body += chunk
                else:
                    body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                record = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                          "body": base64.b64encode(body).decode()}
                with open(path, "a") as log:
                    log.write(json.dumps(record) + "\n")
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        print("listening", server.server_address[1], flush=True)
        server.serve_forever()
        """#

    private init(port: Int, logURL: URL, process: SpawnedProcess) {
        self.port = port
        self.logURL = logURL
        child = process
    }

    /// Starts listening on `port` (0: any free one) and waits until it does.
    static func start(port: Int = 0, in scratch: Scratch) async throws -> FeedbackListener {
        let id = UUID().uuidString
        let logURL = scratch.file("feedback-\(id).jsonl")
        let stdoutURL = scratch.file("feedback-\(id).stdout")
        let stderrURL = scratch.file("feedback-\(id).stderr")
        for url in [logURL, stdoutURL, stderrURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, String(port), logURL.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        let listening = try await eventually(timeout: .seconds(10), interval: .milliseconds(20)) { () throws -> Int? in
            let output = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }),
               let bound = Int(line.dropFirst("listening ".count)) {
                return bound
            }
            if !process.isRunning {
                let errors = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
                throw EndToEndFailure("the feedback receiver exited: \(errors)")
            }
            return nil
        }
        if let listening { return FeedbackListener(port: listening, logURL: logURL, process: process) }
        kill(process.processIdentifier, SIGKILL)
        throw EndToEndFailure("the feedback receiver did not start within 10 s")
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, oldest first.
    var received: [Received] {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let path = object["path"] as? String, let headers = object["headers"] as? [String: String],
                  let encoded = object["body"] as? String, let body = Data(base64Encoded: encoded) else { return nil }
            return Received(path: path, headers: headers, body: body)
        }
    }

    /// Kills the receiver and waits for it to go.
    func stop() async {
        guard child.isRunning else { return }
        kill(child.processIdentifier, SIGKILL)
        _ = await pollUntil(timeout: .seconds(5), interval: .milliseconds(10)) { !child.isRunning }
    }
}

/// Runs a feedback receiver for the length of `body`, and always stops it.
func withFeedbackListener<Value>(port: Int = 0, in scratch: Scratch, _ body: (FeedbackListener) async throws -> Value) async throws -> Value {
    let listener = try await FeedbackListener.start(port: port, in: scratch)
    do {
        let value = try await body(listener)
        await listener.stop()
        return value
    } catch {
        await listener.stop()
        throw error
    }
}
