import Foundation
import HeraldTestSupport
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
        var seen: String?
        _ = try await pollUntil(timeout: timeout, interval: .milliseconds(25)) {
            seen = try await self.state(server)
            return seen == state
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

/// The shared SSE client (HeraldTestSupport), as these tests call it.
typealias SSEClient = EventStreamClient

extension EventStreamClient.Frame {
    /// The data line as JSON.
    var json: JSONObject {
        JSONObject((try? JSONSerialization.jsonObject(with: Data((data ?? "").utf8))) as? [String: Any] ?? [:])
    }
}
