import Foundation
import HeraldSandbox
import Logging

/// The APNs sandbox the push benchmark sends to: `herald sandbox` from the same build, in its own
/// process, on free ports, logging warnings only (it logs every accepted push at `info`, which
/// would make the log, not HTTP/2, the thing measured). When the `herald` binary is not there,
/// `herald-bench sandbox` runs the same `SandboxGateway` in a child process instead.
final class SandboxProcess {
    let process: Process
    let port: Int
    /// The admin API's port (inboxes, faults, Web Push subscriptions).
    let adminPort: Int
    let kind: String

    /// Starts the sandbox and waits for the line that names its port.
    init(herald: String?, certificates: String) throws {
        let process = Process()
        let arguments = ["--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--certs", certificates,
                         "--log-level", "warning"]
        if let herald, FileManager.default.isExecutableFile(atPath: herald) {
            process.executableURL = URL(fileURLWithPath: herald)
            process.arguments = ["sandbox"] + arguments
            kind = "herald sandbox"
        } else {
            process.executableURL = URL(fileURLWithPath: ChildProcess.selfPath)
            process.arguments = ["sandbox", "--certs", certificates]
            kind = "herald-bench sandbox"
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        self.process = process

        // "herald sandbox listening on https://127.0.0.1:PORT (admin http://127.0.0.1:PORT)"
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: "listening on https://"),
              let port = Int(text[range.upperBound...].split(separator: ":").dropFirst().first?
                  .prefix(while: \.isNumber) ?? "") else {
            process.terminate()
            process.waitUntilExit()
            throw OptionsError("\(kind) did not start: '\(text.trimmingCharacters(in: .whitespacesAndNewlines))'")
        }
        self.port = port
        adminPort = text.range(of: "(admin http://").flatMap {
            Int(text[$0.upperBound...].split(separator: ":").dropFirst().first?.prefix(while: \.isNumber) ?? "")
        } ?? 0
    }

    var pid: Int32 { process.processIdentifier }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }

    /// `herald-bench sandbox --certs DIR`: the fallback, `SandboxGateway` in this process until
    /// SIGTERM, printing the same line as `herald sandbox`.
    static func serve(certificates: String) async throws {
        var configuration = SandboxConfiguration(port: 0, adminPort: 0, certificatesDirectory: certificates)
        configuration.host = "127.0.0.1"
        var logger = Logger(label: "herald.sandbox")
        logger.logLevel = .warning
        let gateway = SandboxGateway(configuration: configuration, logger: logger)
        try await gateway.start()
        FileHandle.standardOutput.write(Data("herald sandbox listening on https://127.0.0.1:\(gateway.port) (admin http://127.0.0.1:\(gateway.adminPort))\n".utf8))
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        signal(SIGTERM, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
        for await _ in stream { break }
        await gateway.shutdown()
        withExtendedLifetime(source) {}
    }
}
