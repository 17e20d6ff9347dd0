import Foundation

/// Runs `wrk` for a fixed time and reads its summary.
enum Wrk {
    struct Result {
        var rate: Double
        var requests: Int
        var non2xx: Int
        var socketErrors: Int
        var output: String
    }

    static let threads = 2
    static let connections = 32

    static func run(url: String, seconds: Int, connections: Int = connections, script: String? = nil,
                    scriptArguments: [String] = []) throws -> Result {
        var arguments = ["-t\(threads)", "-c\(connections)", "-d\(seconds)s"]
        if let script { arguments += ["-s", script] }
        arguments.append(url)
        if !scriptArguments.isEmpty { arguments += ["--"] + scriptArguments }
        let output = try ChildProcess.runTool("wrk", arguments)
        var result = Result(rate: .nan, requests: 0, non2xx: 0, socketErrors: 0, output: output)
        for line in output.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "," })
            if line.contains("Requests/sec:"), let last = words.last { result.rate = Double(last) ?? .nan }
            if line.contains(" requests in "), let first = words.first { result.requests = Int(first) ?? 0 }
            if line.contains("Non-2xx or 3xx responses:"), let last = words.last { result.non2xx = Int(last) ?? 0 }
            if line.contains("Socket errors:") {
                result.socketErrors = words.compactMap { Int($0) }.reduce(0, +)
            }
        }
        guard result.rate.isFinite else { throw OptionsError("unreadable wrk output: \(output.prefix(300))") }
        return result
    }
}
