import Foundation

/// Runs this same executable again with other arguments, so a measurement starts from a fresh
/// process (a clean heap for resident-memory readings) rather than one that just built the data.
enum ChildProcess {
    /// Runs `herald-bench arguments…`, passing stderr through, and returns its stdout.
    static func runSelf(_ arguments: [String]) throws -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OptionsError("child \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
