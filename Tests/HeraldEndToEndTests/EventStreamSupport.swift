import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

// Support for the lifecycle and coalescer end-to-end tests: a `herald serve` with a short
// heartbeat, the device routes, a canonical form for coalesced notifications, and a real
// Server-Sent Events client.

/// Starts `herald serve` on a free port with `coalescer.heartbeatMs` set through its environment
/// variable, runs `body`, and always stops the server afterwards.
func withLifecycleServer<Value>(in scratch: Scratch, heartbeatMilliseconds: Int = 200,
                                _ body: (ServerProcess) async throws -> Value) async throws -> Value {
    let server = try await ServerProcess.start(
        arguments: ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory],
        environment: ["HERALD_COALESCER_HEARTBEAT_MS": "\(heartbeatMilliseconds)"], in: scratch)
    do {
        let value = try await body(server)
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}

/// The app and device the lifecycle end-to-end tests work on.
enum LifecycleTarget {
    static let app = "com.example.lifecycle"
    static let device = "iphone-7"

    static func path(_ server: ServerProcess) -> String {
        "\(server.baseURL)/v1/apps/\(app)/devices/\(device)"
    }

    /// `HERALD_SERVER`, `HERALD_APP` and `HERALD_DEVICE` for CLI children.
    static func environment(_ server: ServerProcess) -> [String: String] {
        ["HERALD_SERVER": server.baseURL, "HERALD_APP": app, "HERALD_DEVICE": device]
    }

    /// The device's lifecycle state, as the API shows it.
    static func state(_ server: ServerProcess) async throws -> String? {
        try await http("GET", path(server)).json.string("state")
    }

    /// Polls the device's state until it is `state` (at most `timeout`); returns the last one seen.
    static func waitForState(_ state: String, timeout: Duration, _ server: ServerProcess) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        var seen = try await self.state(server)
        while seen != state, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(25))
            seen = try await self.state(server)
        }
        return seen
    }
}

/// A coalesced notification in one comparable line: `kind[key]=<canonical JSON value>×count`.
/// Values are written by one serializer with sorted keys on both sides of a comparison.
func netLine(kind: String, key: String? = nil, value: Any? = nil, count: Int = 1) -> String {
    let json = (try? JSONSerialization.data(withJSONObject: value ?? NSNull(), options: [.fragmentsAllowed, .sortedKeys]))
        .map { String(decoding: $0, as: UTF8.self) } ?? "?"
    return "\(kind)\(key.map { "[\($0)]" } ?? "")=\(json)×\(count)"
}

/// The line of a coalesced notification as a wake answer or a `system` frame carries it.
func netLine(_ object: JSONObject) -> String {
    netLine(kind: object.string("kind") ?? "?", key: object.string("key"), value: object["value"], count: object.int("count") ?? -1)
}

/// A real SSE client over URLSession: it streams the response and splits it into frames as
/// they arrive. `close()` drops the connection, as a client that went away would.
final class SSEClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One SSE block: a comment line (`: heartbeat`), or an `event:` with its `data:`.
    struct Frame: Sendable, CustomStringConvertible {
        var comment: String?
        var event: String?
        var data: String?
        /// When the client read it.
        var receivedAt: ContinuousClock.Instant

        var json: JSONObject {
            JSONObject((try? JSONSerialization.jsonObject(with: Data((data ?? "").utf8))) as? [String: Any] ?? [:])
        }

        var description: String {
            if let comment { return ": \(comment)" }
            return "\(event ?? "message") \(data ?? "")"
        }
    }

    private let lock = NSLock()
    private var buffer = ""
    private var received: [Frame] = []
    private var statusCode: Int?
    private var ended = false
    private var session: URLSession?
    private var task: URLSessionDataTask?

    init(url: String) {
        super.init()
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: 60)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        let task = session.dataTask(with: request)
        lock.withLock {
            self.session = session
            self.task = task
        }
        task.resume()
    }

    var frames: [Frame] { lock.withLock { received } }
    /// `system` and `notification` frames, without comments.
    var events: [Frame] { frames.filter { $0.event != nil } }
    var heartbeats: [Frame] { frames.filter { $0.comment == "heartbeat" } }
    var status: Int? { lock.withLock { statusCode } }
    var hasEnded: Bool { lock.withLock { ended } }

    /// Waits (at most `timeout`) until `condition` holds for the frames received; returns whether it did.
    func waitUntil(timeout: Duration = .seconds(5), _ condition: ([Frame]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if condition(frames) { return true }
            if ContinuousClock.now >= deadline || hasEnded { return condition(frames) }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until at least `count` event frames arrived; returns the events received.
    func waitForEvents(_ count: Int, timeout: Duration = .seconds(5)) async -> [Frame] {
        _ = await waitUntil(timeout: timeout) { $0.filter { $0.event != nil }.count >= count }
        return events
    }

    /// Drops the connection.
    func close() {
        let (session, task) = lock.withLock { (self.session, self.task) }
        task?.cancel()
        session?.invalidateAndCancel()
        lock.withLock {
            self.session = nil
            self.task = nil
            ended = true
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.withLock { statusCode = (response as? HTTPURLResponse)?.statusCode }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = ContinuousClock.now
        lock.withLock {
            buffer += String(decoding: data, as: UTF8.self)
            while let end = buffer.range(of: "\n\n") {
                let block = buffer[..<end.lowerBound]
                buffer.removeSubrange(..<end.upperBound)
                var frame = Frame(receivedAt: now)
                for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
                    if line.hasPrefix(":") {
                        frame.comment = line.dropFirst().trimmingCharacters(in: .whitespaces)
                    } else if line.hasPrefix("event:") {
                        frame.event = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
                    } else if line.hasPrefix("data:") {
                        let data = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                        frame.data = frame.data.map { $0 + "\n" + data } ?? data
                    }
                }
                received.append(frame)
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock { ended = true }
    }
}
