import Foundation
import HeraldTestSupport
import HeraldHTTP2
import Synchronization
import Testing

typealias Certs = TestCertificates

/// The committed dev certificates, as TLS settings for the tests' servers and clients.
extension TestCertificates {
    static var devCA: String { path("dev-ca.pem") }
    static var serverTLS: TLSServerConfiguration {
        TLSServerConfiguration(certificateFile: path("sandbox-server.pem"), keyFile: path("sandbox-server.key"))
    }
    static var clientTLS: TLSConfiguration { TLSConfiguration(trustRoots: .caFile(devCA)) }
}

/// Runs `body` against a started server on 127.0.0.1:<ephemeral>, always shutting it down.
func withServer<T>(tls: TLSServerConfiguration = Certs.serverTLS,
                   settings: HTTP2ServerSettings = HTTP2ServerSettings(),
                   handler: @escaping HTTP2Server.Handler,
                   _ body: (HTTP2Server) async throws -> T) async throws -> T {
    let server = HTTP2Server(host: "127.0.0.1", port: 0, tls: tls, settings: settings, handler: handler)
    try await server.start()
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

func connect(_ server: HTTP2Server, tls: TLSConfiguration = Certs.clientTLS,
             options: HTTP2ClientOptions = HTTP2ClientOptions()) async throws -> HTTP2ClientConnection {
    try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: server.port, tls: tls, timeout: .seconds(10), options: options)
}

func get(_ path: String, headers: [HTTP2Header] = []) -> HTTP2Request {
    HTTP2Request(method: "GET", path: path, authority: "localhost", headers: headers)
}

/// The error a throwing call produced, for `#expect` on its case.
func captureError(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// Thread-safe tallies for handlers, which run concurrently.
final class Tally: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    let inFlight = Atomic<Int>(0)
    let peak = Atomic<Int>(0)

    /// Counts one occurrence of `key` and returns the new count.
    @discardableResult
    func record(_ key: String) -> Int {
        counts.withLock { counts in
            counts[key, default: 0] += 1
            return counts[key]!
        }
    }

    var snapshot: [String: Int] { counts.withLock { $0 } }

    /// Tracks concurrent handler executions around `body`.
    func measure<T>(_ body: () async -> T) async -> T {
        let now = inFlight.add(1, ordering: .relaxed).newValue
        var seen = peak.load(ordering: .relaxed)
        while now > seen {
            let (exchanged, original) = peak.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
        let result = await body()
        inFlight.subtract(1, ordering: .relaxed)
        return result
    }
}

/// An external process (nghttpd, openssl s_server) that is killed when the test ends.
final class ExternalProcess: Sendable {
    private let process: SpawnedProcess
    let output: String

    init(_ executable: String, _ arguments: [String]) throws {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("herald-h2-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.output = log.path
    }

    func stop() {
        if process.isRunning {
            // SIGKILL: children of the test runner may inherit a mask that blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: output)
    }

    var isRunning: Bool { process.isRunning }
}

/// Runs a command to completion off the cooperative pool; returns exit status and output.
func runCommand(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await withCheckedThrowingContinuation { continuation in
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { finished in
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            continuation.resume(returning: (finished.terminationStatus, String(decoding: data, as: UTF8.self)))
        }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
}

/// Waits until a TCP port accepts connections (external servers start asynchronously).
func waitForPort(_ port: Int, timeout: Duration = .seconds(5)) async -> Bool {
    await pollUntil(timeout: timeout, interval: .milliseconds(50)) { acceptsConnections(port) }
}

/// Whether something listens on 127.0.0.1:`port` right now.
private func acceptsConnections(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    close(fd)
    return rc == 0
}
