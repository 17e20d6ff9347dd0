import Foundation
import HeraldClient
import HeraldTestSupport
import Testing

// Support for the HeraldClient end-to-end tests: clients pointed at a real `herald serve`, a
// server that can be killed and restarted on the same port and data directory (so a client
// reconnects to the same URL), and a recorder of what an event stream handed to its caller.
//
// This file imports HeraldClient: `Device`, `Platform`, `JSONValue`, `HeraldError` here are the
// library's types.

enum ClientE2E {
    /// The app the tests without the sandbox's demo app work on.
    static let app = "com.example.clientlib"

    /// Quick retries and reconnections, so a test that kills its server does not wait long for
    /// the client to come back: 50 ms, then doubling up to 400 ms.
    static let quickRetry = RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(50), maxBackoff: .milliseconds(400))

    /// A client of `server`, with quick retries.
    static func client(_ server: ServerProcess, apiKey: String? = nil, retry: RetryPolicy = quickRetry) -> HeraldClient {
        client(baseURL: server.baseURL, apiKey: apiKey, retry: retry)
    }

    static func client(baseURL: String, apiKey: String? = nil, retry: RetryPolicy = quickRetry) -> HeraldClient {
        HeraldClient(baseURL: URL(string: baseURL)!, apiKey: apiKey, retry: retry)
    }

    /// A one-shot alert notification at `date`.
    static func oneShot(_ id: String, at date: Date) -> NotificationRequest {
        NotificationRequest(id: id, fireDate: date, alert: AlertContent(title: "Herald", body: id))
    }
}

/// What an event stream handed to the code iterating it, in order.
actor EventRecorder {
    struct Fired: Sendable {
        var id: Int64?
        var item: InboxItem
    }

    private(set) var notifications: [Fired] = []
    private(set) var system: [CoalescedEvent] = []
    private(set) var connections = 0

    func record(_ event: HeraldEvent) {
        switch event {
        case .connected: connections += 1
        case .notification(let item, let id): notifications.append(Fired(id: id, item: item))
        case .system(let change, _): system.append(change)
        case .handedOver, .other: break
        }
    }

    /// The notification ids received, in order (repeats included).
    var notificationIDs: [String] { notifications.map(\.item.notificationId) }

    /// Whether every id in `expected` was received.
    func received(all expected: Set<String>) -> Bool {
        expected.isSubset(of: Set(notificationIDs))
    }
}

/// `herald serve` on a fixed loopback port and data directory, that a test kills (`kill -9`) and
/// starts again: a client keeps the same base URL across restarts.
final class RestartableServer: @unchecked Sendable {
    let port: Int
    let arguments: [String]
    let environment: [String: String]
    let scratch: Scratch
    private let lock = NSLock()
    private var process: ServerProcess?
    /// How many times it was started.
    private(set) var starts = 0

    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(port: Int, scratch: Scratch, environment: [String: String] = [:]) {
        self.port = port
        self.scratch = scratch
        self.environment = environment
        arguments = ["--listen", "127.0.0.1:\(port)", "--data-dir", scratch.dataDirectory]
    }

    /// Starts the server. The port was free when picked, but a just-killed server's socket (or a
    /// process elsewhere on the machine) may hold it for a moment: try again for up to 15 s.
    func start() async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            do {
                let started = try await ServerProcess.start(arguments: arguments, environment: environment, in: scratch)
                guard started.port == port else {
                    await started.stop()
                    throw EndToEndFailure("the server listens on \(started.port), not \(port)")
                }
                lock.withLock {
                    process = started
                    starts += 1
                }
                return
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// `kill -9` the running server.
    func crash() async throws {
        guard let running = lock.withLock({ process }) else { return }
        try await running.crash()
        lock.withLock { process = nil }
    }

    /// Stops the running server, if any (SIGTERM, then SIGKILL).
    func stop() async {
        guard let running = lock.withLock({ let running = process; process = nil; return running }) else { return }
        await running.stop()
    }

    /// The running server's log, for failure messages.
    var stderr: String { lock.withLock { process?.child.stderr } ?? "" }
}

/// Starts a restartable server on a free port, runs `body`, and always stops the server afterwards.
func withRestartableServer<Value>(in scratch: Scratch, environment: [String: String] = [:],
                                  _ body: (RestartableServer) async throws -> Value) async throws -> Value {
    let server = RestartableServer(port: try unusedLoopbackPort(), scratch: scratch, environment: environment)
    try await server.start()
    do {
        let value = try await body(server)
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}

/// Registers an ios `device` with no push token under `app` (which exists): whatever fires for
/// it while it is not streaming waits in its inbox.
func registerTokenless(_ client: HeraldClient, app: String = ClientE2E.app, device: String) async throws {
    let registered = try await client.putDevice(app: app, device: device, DeviceRegistration(timeZone: "UTC"))
    #expect(registered.id == device)
    #expect(registered.token == nil)
}
