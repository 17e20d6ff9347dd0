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

// Support for the end-to-end tests: the real `herald` binary, run as child processes, talked to
// over real HTTP. Every test gets its own scratch directory and its own port, so tests can run in
// parallel.

struct EndToEndFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The `herald` executable SwiftPM built next to this test bundle.
enum HeraldBinary {
    static let path: String? = locate()

    static func require() throws -> String {
        guard let path else {
            throw EndToEndFailure("cannot find the built `herald` binary; run `swift build` first or set HERALD_BINARY")
        }
        return path
    }

    private static func locate() -> String? {
        let fileManager = FileManager.default
        var directories: [URL] = []
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["HERALD_BINARY"], fileManager.isExecutableFile(atPath: explicit) {
            return explicit
        }
        // The test runner: .build/<triple>/debug/HeraldPackageTests.xctest (an executable on Linux,
        // a bundle directory on macOS). `herald` sits in the same build directory.
        for path in [CommandLine.arguments.first, Bundle.main.executablePath, Bundle.main.bundlePath].compactMap({ $0 }) {
            var url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
            // Walk up out of any .xctest bundle (macOS: .../HeraldPackageTests.xctest/Contents/MacOS/...).
            for _ in 0..<5 {
                directories.append(url.deletingLastPathComponent())
                url = url.deletingLastPathComponent()
            }
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(URL(fileURLWithPath: bundle.bundlePath).deletingLastPathComponent())
        }
        // Source-relative fallback: <package>/.build/debug/herald.
        directories.append(Repository.url(".build/debug"))
        for directory in directories {
            let candidate = directory.appendingPathComponent("herald").path
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
               fileManager.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }
}

/// A temporary directory for one test, removed at the end.
struct Scratch: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var dataDirectory: String { url.appendingPathComponent("data").path }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a scratch directory that is removed afterwards, whatever happens.
func withScratch<Value>(_ body: (Scratch) async throws -> Value) async throws -> Value {
    let scratch = try Scratch()
    defer { scratch.remove() }
    return try await body(scratch)
}

/// The environment for a child: ours without any HERALD_* variable, plus `extra`.
private func childEnvironment(_ extra: [String: String]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HERALD_") }
    for (key, value) in extra { environment[key] = value }
    return environment
}

/// A child process whose stdout and stderr go to files (no pipe can fill up and block it).
final class ChildProcess: @unchecked Sendable {
    let process = SpawnedProcess()
    let stdoutURL: URL
    let stderrURL: URL

    init(arguments: [String], environment: [String: String], outputPrefix: URL) throws {
        stdoutURL = outputPrefix.appendingPathExtension("stdout")
        stderrURL = outputPrefix.appendingPathExtension("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try HeraldBinary.require())
        process.arguments = arguments
        process.environment = childEnvironment(environment)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    var pid: Int32 { process.processIdentifier }

    /// Waits for the process to end; returns its exit status, or nil if it outlived `timeout`.
    func waitForExit(timeout: Duration) async -> Int32? {
        guard await pollUntil(timeout: timeout, interval: .milliseconds(10), { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    func signal(_ number: Int32) {
        if process.isRunning { _ = kill(pid, number) }
    }
}

/// What a finished CLI command left behind.
struct CommandResult: Sendable, CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var succeeded: Bool { status == 0 }
    var output: String { stdout + stderr }

    /// The stdout parsed as a JSON object.
    func jsonObject() throws -> JSONObject {
        guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
            throw EndToEndFailure("stdout is not a JSON object: \(stdout)")
        }
        return JSONObject(object)
    }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }
}

/// Runs `herald <arguments>` to completion (at most 30 s).
func runHerald(_ arguments: [String], environment: [String: String] = [:], in scratch: Scratch) async throws -> CommandResult {
    let child = try ChildProcess(arguments: arguments, environment: environment,
                                 outputPrefix: scratch.file("cli-\(UUID().uuidString)"))
    guard let status = await child.waitForExit(timeout: .seconds(30)) else {
        child.signal(SIGKILL)
        throw EndToEndFailure("herald \(arguments.joined(separator: " ")) did not finish within 30 s")
    }
    return CommandResult(status: status, stdout: child.stdout, stderr: child.stderr)
}

/// A running `herald serve`.
final class ServerProcess: @unchecked Sendable {
    let child: ChildProcess
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    /// Starts `herald serve` and waits (at most 20 s) for its `herald listening on` line.
    static func start(arguments: [String], environment: [String: String] = [:], in scratch: Scratch) async throws -> ServerProcess {
        let child = try ChildProcess(arguments: ["serve"] + arguments, environment: environment,
                                     outputPrefix: scratch.file("serve-\(UUID().uuidString)"))
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let port = listeningPort(in: child.stdout) {
                return ServerProcess(child: child, port: port)
            }
            if !child.process.isRunning {
                throw EndToEndFailure("herald serve exited with \(child.process.terminationStatus) before listening:\n\(child.stderr)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        child.signal(SIGKILL)
        _ = await child.waitForExit(timeout: .seconds(5))
        throw EndToEndFailure("herald serve did not print its listening line within 20 s:\n\(child.stdout)\n\(child.stderr)")
    }

    /// The port in a `herald listening on http://127.0.0.1:<port>` line.
    static func listeningPort(in output: String) -> Int? {
        let prefix = "herald listening on http://"
        for line in output.split(separator: "\n") where line.hasPrefix(prefix) {
            if let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) {
                return port
            }
        }
        return nil
    }

    /// `kill -9`: no chance to flush or shut down.
    func crash() async throws {
        child.signal(SIGKILL)
        guard await child.waitForExit(timeout: .seconds(10)) != nil else {
            throw EndToEndFailure("the server survived SIGKILL")
        }
    }

    /// Asks the server to stop (SIGTERM), and kills it if it has not within 5 s.
    func stop() async {
        child.signal(SIGTERM)
        if await child.waitForExit(timeout: .seconds(5)) == nil {
            child.signal(SIGKILL)
            _ = await child.waitForExit(timeout: .seconds(5))
        }
    }
}

/// Starts a server on the scratch data directory and a free port, runs `body`, and always stops
/// the server afterwards.
///
/// - Parameter arguments: `serve`'s arguments; by default a free port and the scratch data
///   directory. A body that crashes or stops the server itself is fine: stopping it again is a no-op.
func withServer<Value>(arguments: [String]? = nil, in scratch: Scratch,
                       _ body: (ServerProcess) async throws -> Value) async throws -> Value {
    let server = try await ServerProcess.start(
        arguments: arguments ?? ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory], in: scratch)
    do {
        let value = try await body(server)
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}

/// A JSON object from `JSONSerialization`, with typed accessors.
struct JSONObject: @unchecked Sendable {
    let raw: [String: Any]

    init(_ raw: [String: Any]) { self.raw = raw }

    subscript(key: String) -> Any? { raw[key] }
    func string(_ key: String) -> String? { raw[key] as? String }
    func int(_ key: String) -> Int? { (raw[key] as? NSNumber)?.intValue }
    func bool(_ key: String) -> Bool? { (raw[key] as? NSNumber)?.boolValue }
    func double(_ key: String) -> Double? { (raw[key] as? NSNumber)?.doubleValue }
    func object(_ key: String) -> JSONObject? { (raw[key] as? [String: Any]).map(JSONObject.init) }
    func objects(_ key: String) -> [JSONObject] { (raw[key] as? [[String: Any]] ?? []).map(JSONObject.init) }
    func strings(_ key: String) -> [String] { raw[key] as? [String] ?? [] }
}

/// Plain HTTP to a running server.
struct HTTPReply: Sendable {
    var status: Int
    var body: Data
    /// Header names in lower case.
    var headers: [String: String] = [:]

    var json: JSONObject {
        JSONObject((try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:])
    }
}

func http(_ method: String, _ url: String, json: [String: Any]? = nil) async throws -> HTTPReply {
    var request = URLRequest(url: URL(string: url)!, timeoutInterval: 10)
    request.httpMethod = method
    if let json {
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = response as? HTTPURLResponse
    var headers: [String: String] = [:]
    for (name, value) in http?.allHeaderFields ?? [:] {
        if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
    }
    return HTTPReply(status: http?.statusCode ?? 0, body: data, headers: headers)
}

/// RFC 3339 in UTC, whole seconds: `2026-12-01T06:30:00Z`.
func utc(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
}

/// Reads an RFC 3339 instant as the server writes it (with or without milliseconds).
func instant(_ text: String?) -> Date? {
    guard let text else { return nil }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)
}

/// The next whole second at least `seconds` from now.
func wholeSecond(after seconds: TimeInterval) -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
}
