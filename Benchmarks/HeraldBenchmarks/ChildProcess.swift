import Foundation

/// Runs other programs and waits for them: this same executable again, so a measurement starts
/// from a fresh process (a clean heap for resident-memory readings), or a tool such as `wrk` or
/// `h2load` found on the PATH.
enum ChildProcess {
    /// Runs `herald-bench arguments…`, passing stderr through, and returns its stdout.
    static func runSelf(_ arguments: [String]) throws -> String {
        try run(executable: selfPath, arguments)
    }

    /// This executable's path.
    static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Runs `tool arguments…` from the PATH, passing stderr through, and returns its stdout.
    static func runTool(_ tool: String, _ arguments: [String]) throws -> String {
        try run(executable: "/usr/bin/env", [tool] + arguments)
    }

    /// True when `tool` is on the PATH.
    static func hasTool(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    static func run(executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OptionsError("\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.first ?? "") exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
