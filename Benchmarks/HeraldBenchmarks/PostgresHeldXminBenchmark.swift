import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStorage
import HeraldTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `herald-bench postgres-xmin`: does the claim keep its pace while dead rows pile up under a
/// held xmin horizon? Two real `herald serve` nodes on one throwaway PostgreSQL take a steady
/// `--xmin-rate` schedules a second in all through the API, half through each, each due 3 s
/// after it is posted (one-shots to inboxes: every firing deletes its row, so a dead index
/// entry per schedule piles up). After a warm-up (10 s), a `psql` session opens a REPEATABLE READ
/// transaction (a report, a stuck replica) and holds it for `--xmin-hold` seconds: vacuum can
/// remove nothing meanwhile.
///
/// Lateness is from a firing's instant until it was in its device's inbox: the commit time of
/// its fire-log row's last write (`track_commit_timestamp`), the claim's or the dispatcher's hold,
/// so a claim slowed by dead rows counts in full (the fire log's `fired_at` is when the claim
/// began). The row compares its p99 over the hold's last 30 s with its p99 over the first 30 s
/// (windows by instant; shorter holds use thirds). Goal: the last at most 1.5× the first, or at
/// most 10 ms.
enum PostgresHeldXminBenchmark {
    static let database = "xmin"
    static let lead: Int64 = 3_000
    static let devices = 1_000

    static func run(_ options: Options) async throws -> [ResultRow] {
        guard !options.herald.isEmpty else { throw OptionsError("postgres-xmin needs --herald BIN") }
        let scratch = try ScratchDirectory(under: options.scratch, name: "postgres-xmin")
        defer { scratch.remove() }
        progress("postgres-xmin: starting PostgreSQL")
        let postgres = try PostgresServer.start(settings: [("track_commit_timestamp", "on"),
                                                           ("shared_preload_libraries", "pg_stat_statements")])
        defer { postgres.stop() }
        try postgres.createDatabase(database)
        _ = try postgres.query("CREATE EXTENSION pg_stat_statements", database: database)
        let url = postgres.url(database: database)
        let store = try await PostgresStore.open(try PostgresLocation(url: url, passwordFile: nil, environment: [:]),
                                                 nodeID: "bench-loader")
        try await Fixtures.register(store, devices: devices)
        try await store.leave()
        await store.close()

        let setup = ClusterBenchmark.Setup(nodes: 2, database: url)
        var nodes: [(process: Process, port: Int)] = []
        defer { for node in nodes { HeraldNode.stop(node.process) } }
        for index in 0..<2 {
            nodes.append(try ClusterBenchmark.startNode(index, setup: setup, herald: options.herald, directory: scratch.path))
        }

        let hold = Double(options.xminHold)
        let window = min(30, hold / 3)
        let warmUp = min(10, hold)
        let loadSeconds = warmUp + hold
        progress("postgres-xmin: \(options.xminRate) schedules/s over 2 nodes for \(Int(loadSeconds)) s; xmin held from "
            + "\(Int(warmUp)) s for \(Int(hold)) s")
        let loadStart = Date()
        let loaders = nodes.enumerated().map { index, node in
            Loader(port: node.port, node: index, perSecond: Double(options.xminRate) / 2, seconds: loadSeconds, start: loadStart)
        }
        for loader in loaders { Thread { loader.run() }.start() }
        try await Task.sleep(for: .seconds(warmUp))
        let horizon = try HeldSnapshot(port: postgres.port, database: database)
        try await horizon.waitUntilHeld(on: postgres)
        let heldFrom = Date().millisecondsSince1970
        // PostgreSQL's CPU, and the claim's read, over the first and the last window: what
        // walking the dead rows costs.
        let (firstCPU, firstRead) = try await measureWindow(seconds: window, on: postgres)
        try await Task.sleep(for: .seconds(hold - 2 * window))
        let (lastCPU, lastRead) = try await measureWindow(seconds: window, on: postgres)
        let heldUntil = Date().millisecondsSince1970
        let dead = Int(try postgres.query("SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'notification'",
                                          database: database).first?.first ?? "") ?? 0
        horizon.release()
        for loader in loaders { loader.waitUntilDone() }
        let refused = loaders.reduce(0) { $0 + $1.refused }
        let sent = loaders.reduce(0) { $0 + $1.sent }
        guard refused * 100 <= sent else { throw OptionsError("postgres-xmin: \(refused) of \(sent) schedules refused") }
        // Everything posted is due by 3 s after the last post; then read the fire log.
        try await Task.sleep(for: .milliseconds(lead + 2_000))
        let samples = try postgres.query("""
            SELECT scheduled_for, (extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000)::bigint FROM delivery
            WHERE outcome <> 'pending'
            """, database: database).compactMap { row -> (Int64, Int64)? in
            guard row.count == 2, let scheduled = Int64(row[0]), let fired = Int64(row[1]) else { return nil }
            return (scheduled, fired)
        }
        func lateness(from: Int64, to: Int64) -> LatencySummary {
            LatencySummary(samples.filter { $0.0 >= from && $0.0 < to }.map { Double($0.1 - $0.0) / 1000 })
        }
        let windowMilliseconds = Int64(window * 1000)
        let first = lateness(from: heldFrom, to: heldFrom + windowMilliseconds)
        let last = lateness(from: heldUntil - windowMilliseconds, to: heldUntil)
        let allowed = max(1.5 * first.p99, 0.010)
        return [ResultRow(
            benchmark: "postgres held xmin: 2 nodes, \(options.xminRate) schedules/s through the API due 3 s later, "
                + "xmin held \(Int(hold)) s (real herald serve)",
            measured: "lateness p99 over the last \(Int(window)) s \(Format.milliseconds(last.p99)) "
                + "(\(Format.grouped(last.count)) firings), claim read \(Format.milliseconds(lastRead)) a call, "
                + "PostgreSQL CPU \(String(format: "%.0f%%", lastCPU * 100)); \(Format.grouped(dead)) dead notification rows",
            reference: "p99 over the first \(Int(window)) s \(Format.milliseconds(first.p99)) (\(Format.grouped(first.count)) firings), "
                + "claim read \(Format.milliseconds(firstRead)) a call, PostgreSQL CPU \(String(format: "%.0f%%", firstCPU * 100))",
            ratio: first.p99 > 0 ? last.p99 / first.p99 : nil,
            goal: "≤ 1.5× or ≤ 10 ms", met: last.p99 <= allowed)]
    }

    /// PostgreSQL's share of a core over the next `seconds`, and the mean time of the claim's read
    /// statement (``ClaimRead``, from `pg_stat_statements`) over them.
    static func measureWindow(seconds: Double, on postgres: PostgresServer) async throws -> (cpu: Double, claimRead: Double) {
        _ = try postgres.query("SELECT pg_stat_statements_reset()", database: database)
        let start = ClusterBenchmark.CPUSnapshot.take([])
        try await Task.sleep(for: .seconds(seconds))
        let cpu = start.shares(until: ClusterBenchmark.CPUSnapshot.take([])).postgres
        let mean = try postgres.query("""
            SELECT sum(total_exec_time) / greatest(sum(calls), 1) FROM pg_stat_statements
            WHERE query LIKE 'WITH bound AS MATERIALIZED%'
            """, database: database).first?.first.flatMap(Double.init) ?? 0
        return (cpu, mean / 1000)
    }

    /// Posts one-shot schedules to one node at a steady pace, each due `lead` after it is sent,
    /// cycling over the devices, on a thread of its own (a blocking keep-alive connection).
    final class Loader: @unchecked Sendable {
        let port: Int
        let node: Int
        let perSecond: Double
        let seconds: Double
        let start: Date
        private let done = DispatchSemaphore(value: 0)
        private(set) var sent = 0
        private(set) var refused = 0

        init(port: Int, node: Int, perSecond: Double, seconds: Double, start: Date) {
            (self.port, self.node, self.perSecond, self.seconds, self.start) = (port, node, perSecond, seconds, start)
        }

        func run() {
            defer { done.signal() }
            guard let connection = try? HTTPConnection(port: port) else { return }
            let total = Int(perSecond * seconds)
            for index in 0..<total {
                let due = start.addingTimeInterval(Double(index) / perSecond)
                let wait = due.timeIntervalSinceNow
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                let device = Fixtures.deviceID((index * 2 + node) % PostgresHeldXminBenchmark.devices)
                let fireAt = Date().millisecondsSince1970 + PostgresHeldXminBenchmark.lead
                let body = #"{"fireDate":"\#(RFC3339.string(fromMilliseconds: fireAt))","alert":{"body":"hi"}}"#
                let status = (try? connection.request("POST", "/v1/apps/\(Fixtures.appID)/devices/\(device)/notifications",
                                                      body: body).status) ?? 0
                sent += 1
                if status != 201 { refused += 1 }
            }
        }

        func waitUntilDone() { done.wait() }
    }

    /// A `psql` session holding a REPEATABLE READ snapshot open, so the xmin horizon stays where
    /// it was when it started, until ``release()``.
    final class HeldSnapshot: @unchecked Sendable {
        private let process = Process()
        private let input = Pipe()

        init(port: Int, database: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            process.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-U", PostgresServer.user, "-d", database, "-q"]
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // The snapshot is taken at the first query and held until the transaction ends.
            input.fileHandleForWriting.write(Data("BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT count(*) FROM device;\n".utf8))
        }

        /// Waits until the session's snapshot holds the horizon back (its backend has an xmin).
        func waitUntilHeld(on postgres: PostgresServer) async throws {
            for _ in 0..<100 {
                let held = try postgres.query("""
                    SELECT count(*) FROM pg_stat_activity WHERE application_name = 'psql' AND backend_xmin IS NOT NULL
                    """, database: PostgresHeldXminBenchmark.database).first?.first
                if held.flatMap({ Int($0) }) ?? 0 > 0 { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw OptionsError("postgres-xmin: the psql session never held a snapshot")
        }

        func release() {
            input.fileHandleForWriting.write(Data("COMMIT;\n\\q\n".utf8))
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}
