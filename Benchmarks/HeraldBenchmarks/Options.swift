import Foundation

/// Sizes and switches from the command line: `--name value` pairs after an optional subcommand.
struct Options: Sendable {
    /// Which part to run: `all` (the in-process scheduler benchmarks), `arming`, `firing`,
    /// `push`, `coalesce`, `coalesce-http`, `sandbox`, `table`, or the internal
    /// `arm-probe` and `push-probe` a parent runs in a fresh process.
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

    /// Push benchmark: pushes per run, streams in flight per connection, the connection counts
    /// to run, the `herald` binary that serves the sandbox, and the dev certificates.
    var pushes = 1_000_000
    var streams = 100
    var pushConnections = [1, 4]
    /// Channel benchmark: FCM and Web Push messages per run, and the bare OpenSSL loop to compare
    /// Web Push encryption with.
    var channelMessages = 100_000
    /// `live-activities`: scheduled Live Activity updates, and as many alerts beside them, spread
    /// at `activityRate` per second (both kinds together).
    var activityPushes = 5_000
    var activityRate = 1_000
    var webPushFloor: String?
    /// The servers the push benchmark sends to, in order: `sandbox`, `nghttpd`, or both.
    var pushTargets = ["sandbox", "nghttpd"]
    var herald = ""
    var certificates = "Certs"
    /// For `push-probe`: the sandbox's port and the connections to open.
    var port = 0
    var connections = 1
    /// `cluster`: the PostgreSQL node counts to run, beside one node on SQLite.
    var clusterNodes = [1, 2, 3]
    /// `postgres-xmin`: schedules a second through the API over both nodes, and how long the
    /// xmin horizon is held.
    var xminRate = 150
    var xminHold = 150
    /// Each push's time limit in seconds, as `PushGateway.Configuration.timeout` (default 30 s).
    var pushTimeout = 30

    /// Coalescer: events (in-process pure ingest, and through HTTP), the asleep devices they go
    /// to, events for the SQLiteStore runs, wakes timed, and seconds per wrk run.
    var events = 1_000_000
    var eventDevices = 10_000
    var storeEvents = 200_000
    var wakes = 2_000
    var httpSeconds = 10
    /// For `coalesce-http`: the server `run.sh` started (`--port`, `--data-dir` as well), a name
    /// for it in the rows, and the wrk script.
    var serverPID: Int32 = 0
    var serverLabel = ""
    var eventsScript = "Benchmarks/wrk/events.lua"
    /// For `postgres-schedule`: the wrk script that posts schedules (wrk/schedule.lua).
    var wrkScript = "Benchmarks/wrk/schedule.lua"
    /// For `schedule-floor`: the PostgreSQL database it serves from (else `--data-dir`: SQLite).
    var url = ""

    static let usage = """
        usage: herald-bench [all|arming|firing] [--notifications N] [--devices N] [--burst N]
                            [--rate N] [--seconds N] [--rounds N] [--scratch DIR]
               herald-bench push [--pushes N] [--streams N] [--push-connections 1,4] [--push-timeout S]
               herald-bench channels [--channel-messages N] [--streams N] [--push-connections 1,4] [--webpush-floor PATH]
                                 [--push-targets sandbox,nghttpd]
                                 [--herald BIN] [--certs DIR] [--scratch DIR]
               herald-bench live-activities --herald BIN [--activity-pushes N] [--activity-rate N] [--certs DIR]
                                            [--scratch DIR]
               herald-bench slow-peer [--certs DIR] [--scratch DIR]
               herald-bench sqlite-burst [--burst N] [--scratch DIR]
               herald-bench postgres-burst [--burst N] [--scratch DIR]
               herald-bench postgres-schedule --herald BIN [--devices N] [--seconds N] [--wrk-script PATH] [--scratch DIR]
               herald-bench postgres-xmin --herald BIN [--xmin-rate N] [--xmin-hold S] [--scratch DIR]
               herald-bench cluster --herald BIN [--cluster-nodes 1,2,3] [--rate N] [--seconds N] [--burst N]
                                    [--scratch DIR]
               herald-bench delivery-load [--rate N] [--seconds N] [--certs DIR] [--scratch DIR]
               herald-bench coalesce [--events N] [--event-devices N] [--store-events N] [--rounds N]
                                     [--scratch DIR]
               herald-bench coalesce-http --port P --server-pid PID --data-dir DIR [--server-label TEXT]
                                          [--event-devices N] [--events N] [--wakes N] [--http-seconds N]
                                          [--events-script FILE] [--scratch DIR]
               herald-bench schedule-floor (--url URL | --data-dir DIR [--devices N])
               herald-bench sandbox [--certs DIR]
               herald-bench table --rows FILE
        The benchmarks print one tab-separated line per result, each starting with ROW; progress
        goes to stderr. `sandbox` runs the APNs sandbox in-process until SIGTERM. `table` prints
        the ROW lines of FILE as one markdown table.
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
            case "--pushes": pushes = try Self.positive(value, flag)
            case "--streams": streams = try Self.positive(value, flag)
            case "--channel-messages": channelMessages = try Self.positive(value, flag)
            case "--webpush-floor": webPushFloor = value
            case "--activity-pushes": activityPushes = try Self.positive(value, flag)
            case "--activity-rate": activityRate = try Self.positive(value, flag)
            case "--push-connections":
                pushConnections = try value.split(separator: ",").map { try Self.positive(String($0), flag) }
            case "--push-targets":
                pushTargets = value.split(separator: ",").map(String.init)
                guard !pushTargets.isEmpty, pushTargets.allSatisfy({ $0 == "sandbox" || $0 == "nghttpd" }) else {
                    throw OptionsError("\(flag) takes sandbox, nghttpd or both, comma-separated")
                }
            case "--xmin-rate": xminRate = try Self.positive(value, flag)
            case "--xmin-hold": xminHold = try Self.positive(value, flag)
            case "--cluster-nodes":
                clusterNodes = try value.split(separator: ",").map { try Self.positive(String($0), flag) }
            case "--herald": herald = value
            case "--certs": certificates = value
            case "--port": port = try Self.positive(value, flag)
            case "--connections": connections = try Self.positive(value, flag)
            case "--push-timeout": pushTimeout = try Self.positive(value, flag)
            case "--events": events = try Self.positive(value, flag)
            case "--event-devices": eventDevices = try Self.positive(value, flag)
            case "--store-events": storeEvents = try Self.positive(value, flag)
            case "--wakes": wakes = try Self.positive(value, flag)
            case "--http-seconds": httpSeconds = try Self.positive(value, flag)
            case "--server-pid": serverPID = Int32(try Self.positive(value, flag))
            case "--server-label": serverLabel = value
            case "--events-script": eventsScript = value
            case "--wrk-script": wrkScript = value
            case "--url": url = value
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
