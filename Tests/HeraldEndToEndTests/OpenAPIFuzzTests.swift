import Foundation
import HeraldTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

@Suite("OpenAPI fuzzing")
struct OpenAPIFuzzTests {
    /// scripts/api-fuzz/run.sh bounds schemathesis itself; this only catches a script that hangs.
    static let deadline: Duration = .seconds(1200)

    @Test("the API survives schemathesis: no 5xx, documented shapes, refusals change nothing stored")
    func schemathesis() async throws {
        let binary = try HeraldBinary.require()
        let script = Repository.url("scripts/api-fuzz/run.sh")
        #expect(FileManager.default.fileExists(atPath: script.path), "missing \(script.path)")
        try await withScratch { scratch in
            // A file, not a pipe: schemathesis' report is long and a full pipe would block it.
            let log = scratch.file("api-fuzz.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let output = try FileHandle(forWritingTo: log)
            defer { try? output.close() }

            let process = SpawnedProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["bash", script.path, binary]
            var environment = ProcessInfo.processInfo.environment
            environment["HERALD_BINARY"] = binary
            environment["TMPDIR"] = scratch.url.path
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = output
            try process.run()

            _ = await pollUntil(timeout: Self.deadline, interval: .milliseconds(250)) { !process.isRunning }
            if process.isRunning {
                // TERM lets the script's trap stop the server it started; KILL if it will not go.
                _ = kill(process.processIdentifier, SIGTERM)
                try await Task.sleep(for: .seconds(15))
                if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                Issue.record("scripts/api-fuzz/run.sh did not finish within \(Self.deadline):\n\(text)")
                return
            }
            // A missing python3, venv or pip makes the script exit non-zero: a failure, not a skip.
            let status = process.terminationStatus
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(status == 0, "scripts/api-fuzz/run.sh exited \(status):\n\(text)")
        }
    }
}
