import Foundation

/// Sizes and switches from the command line: `--name value` pairs after an optional subcommand.
struct Options: Sendable {
    /// Which part to run: `all` (the in-process benchmarks), `arming`, `firing`, `serve`, `table`,
    /// or the internal `arm-probe` a parent runs in a fresh process.
    var command = "all"
    /// Pending notifications armed at start, and the devices they are spread over.
    var notifications = 1_000_000
    var devices = 10_000
    /// Occurrences due in the same second.
    var burst = 100_000
    /// Steady firing: occurrences per second, for this many seconds.
    var rate = 10_000
    var seconds = 10
    /// How many times each arming measurement is repeated (the median is kept).
    var rounds = 3
    /// Working directory for temporary data; a fresh subdirectory is made and removed.
    var scratch = NSTemporaryDirectory()
    /// For `arm-probe`: the prepared data directory and what to measure (`herald` or `scan`).
    var dataDirectory = ""
    var mode = "herald"
    /// For `table`: the file of ROW lines to print as one table.
    var rows = ""

    static let usage = """
        usage: herald-bench [all|arming|firing] [--notifications N] [--devices N] [--burst N]
                            [--rate N] [--seconds N] [--rounds N] [--scratch DIR]
               herald-bench serve
               herald-bench table --rows FILE
        The benchmarks print one tab-separated line per result, each starting with ROW; progress
        goes to stderr. `serve` runs HeraldServer in-process (configured from HERALD_* variables)
        until SIGTERM. `table` prints the ROW lines of FILE as one markdown table.
        """

    init(arguments: [String]) throws {
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("--") {
            command = first
            rest = rest.dropFirst()
        }
        while let flag = rest.popFirst() {
            guard flag.hasPrefix("--"), let value = rest.popFirst() else {
                throw OptionsError("expected --flag value, got '\(flag)'")
            }
            switch flag {
            case "--notifications": notifications = try Self.positive(value, flag)
            case "--devices": devices = try Self.positive(value, flag)
            case "--burst": burst = try Self.positive(value, flag)
            case "--rate": rate = try Self.positive(value, flag)
            case "--seconds": seconds = try Self.positive(value, flag)
            case "--rounds": rounds = try Self.positive(value, flag)
            case "--scratch": scratch = value
            case "--data-dir": dataDirectory = value
            case "--mode": mode = value
            case "--rows": rows = value
            default: throw OptionsError("unknown flag \(flag)")
            }
        }
    }

    private static func positive(_ text: String, _ flag: String) throws -> Int {
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), value > 0 else {
            throw OptionsError("\(flag) needs a positive integer, got '\(text)'")
        }
        return value
    }
}

struct OptionsError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
