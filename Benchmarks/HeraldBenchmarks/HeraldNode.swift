import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `herald serve` process for a benchmark, configured by its own YAML file alone.
enum HeraldNode {
    /// Writes `yaml` to `directory/name.yaml`, starts `herald serve` on it, and waits until it
    /// listens.
    ///
    /// - Returns: the process and the port it listens on (the YAML may ask for port 0).
    /// - Throws: when it exits or does not listen within 30 s, with the end of its log.
    static func start(yaml: String, name: String, herald: String, directory: String) throws -> (process: Process, port: Int) {
        let config = "\(directory)/\(name).yaml"
        try yaml.write(toFile: config, atomically: true, encoding: .utf8)
        // The node's settings are its file's alone: HERALD_* variables left by run.sh's other
        // servers (HERALD_DATA_DIR, HERALD_LISTEN) would win over the file.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HERALD_") }
        return try launch(herald, ["serve", "--config", config], environment: environment,
                          marker: "herald listening on http://127.0.0.1:", name: name, directory: directory)
    }

    /// Starts `executable` with its output in `directory/name.out` and its log in
    /// `directory/name.log`, and waits until the output names its port after `marker`.
    ///
    /// - Returns: the process and that port.
    /// - Throws: when it exits or names no port within 30 s, with the end of its log.
    static func launch(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                       marker: String, name: String, directory: String) throws -> (process: Process, port: Int) {
        let output = "\(directory)/\(name).out"
        let log = "\(directory)/\(name).log"
        for file in [output, log] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        for _ in 0..<600 {
            if let text = try? String(contentsOfFile: output, encoding: .utf8), let range = text.range(of: marker) {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return (process, port) }
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        stop(process)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw OptionsError("\(name) did not start: \(text.suffix(500))")
    }

    /// SIGTERM, then SIGKILL after 5 s.
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<100 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
