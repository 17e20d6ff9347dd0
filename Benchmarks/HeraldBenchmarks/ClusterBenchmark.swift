import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStorage
import HeraldTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `herald-bench cluster`: real `herald serve` processes firing one schedule, in one run:
/// one node on SQLite (the reference), then 1, 2 and 3 nodes sharing one PostgreSQL.
///
/// Each setup gets the same shape of work, prepared in the store before its nodes start (they
/// arm it at start, as after a restart): a steady part, `rate` occurrences a second per node for
/// `seconds`, then a burst of `burst` occurrences due at one instant. Devices have no push
/// settings, so each firing is delivered to its device's inbox (store writes, no network).
/// Lateness is the fire log's `fired_at − scheduled_for` (the claim's start, whole milliseconds)
/// over the steady part; throughput is the burst's size over the time from its instant until
/// its last outcome was stored (polled every 50 ms). CPU is each node's, and all of
/// PostgreSQL's processes', as a share of one core: over the whole run for the steady row, and
/// over the burst for the burst row.
enum ClusterBenchmark {
    static let lateness99Goal = 0.020

    struct Setup {
        var nodes: Int
        /// The database URL, or nil for SQLite.
        var database: String?
        var label: String { database == nil ? "SQLite, 1 node" : "PostgreSQL, \(nodes) node\(nodes == 1 ? "" : "s")" }
    }

    struct Measurement {
        var steady: LatencySummary
        var steadyRate: Int
        var burstPerSecond: Double
        var nodeCPU: [Double]
        var postgresCPU: Double?
        /// The same, from the burst's instant until its last outcome was stored.
        var nodeBurstCPU: [Double]
        var postgresBurstCPU: Double?
    }

    static func run(_ options: Options) async throws -> [ResultRow] {
        guard !options.herald.isEmpty else { throw OptionsError("cluster needs --herald BIN") }
        let scratch = try ScratchDirectory(under: options.scratch, name: "cluster")
        defer { scratch.remove() }
        progress("cluster: starting PostgreSQL")
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }

        var setups = [Setup(nodes: 1, database: nil)]
        for nodes in options.clusterNodes {
            try postgres.createDatabase("bench_\(nodes)")
            setups.append(Setup(nodes: nodes, database: postgres.url(database: "bench_\(nodes)")))
        }
        var results: [(Setup, Measurement)] = []
        for setup in setups {
            progress("cluster: \(setup.label)")
            results.append((setup, try await measure(setup, postgres: postgres, options: options, scratch: scratch)))
        }
        return rows(results, options: options)
    }

    /// Two rows a setup: steady lateness (goal p99 ≤ 20 ms), and burst throughput beside a
    /// reference (PostgreSQL with 1 node beside SQLite; N nodes beside N × 1 node, linear).
    static func rows(_ results: [(Setup, Measurement)], options: Options) -> [ResultRow] {
        func cpu(_ nodes: [Double], _ postgres: Double?) -> String {
            "CPU: node" + (nodes.count == 1 ? " " : "s ") + nodes.map { String(format: "%.0f%%", $0 * 100) }.joined(separator: " + ")
                + (postgres.map { String(format: ", PostgreSQL %.0f%%", $0 * 100) } ?? "")
        }
        let sqlite = results.first { $0.0.database == nil }?.1
        let single = results.first { $0.0.database != nil && $0.0.nodes == 1 }?.1
        var rows: [ResultRow] = []
        for (setup, measured) in results {
            rows.append(ResultRow(
                benchmark: "cluster steady: \(setup.label), \(Format.grouped(options.rate))/s per node for \(options.seconds) s (real herald serve)",
                measured: "lateness p50 \(Format.milliseconds(measured.steady.p50)), p99 \(Format.milliseconds(measured.steady.p99)); "
                    + cpu(measured.nodeCPU, measured.postgresCPU),
                reference: setup.database == nil ? "—" : sqlite.map { "SQLite, 1 node: p99 \(Format.milliseconds($0.steady.p99))" } ?? "—",
                ratio: nil, goal: "p99 ≤ 20 ms", met: measured.steady.p99 <= lateness99Goal))
            var reference = "—"
            var ratio: Double?
            var goal = "—"
            var met: Bool?
            if setup.database != nil, setup.nodes == 1, let sqlite {
                reference = "SQLite, 1 node: \(Format.rate(sqlite.burstPerSecond, unit: "fires/s"))"
                ratio = measured.burstPerSecond / sqlite.burstPerSecond
            } else if setup.database != nil, let single {
                let linear = single.burstPerSecond * Double(setup.nodes)
                reference = "\(setup.nodes) × PostgreSQL 1 node (linear): \(Format.rate(linear, unit: "fires/s"))"
                ratio = measured.burstPerSecond / linear
                goal = "near-linear (≥ 0.8×)"
                met = measured.burstPerSecond / linear >= 0.8
            }
            rows.append(ResultRow(
                benchmark: "cluster burst: \(setup.label), \(Format.grouped(options.burst)) due at one instant, to inboxes",
                measured: "\(Format.rate(measured.burstPerSecond, unit: "fires/s")); during the burst "
                    + cpu(measured.nodeBurstCPU, measured.postgresBurstCPU),
                reference: reference, ratio: ratio, goal: goal, met: met))
        }
        return rows
    }

    /// Prepares the store, starts the nodes, waits until every occurrence has an outcome, and
    /// reads the fire log.
    static func measure(_ setup: Setup, postgres: PostgresServer, options: Options,
                        scratch: ScratchDirectory) async throws -> Measurement {
        let directory = "\(scratch.path)/\(setup.database == nil ? "sqlite" : "pg-\(setup.nodes)")"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let steadyRate = options.rate * setup.nodes
        let steadyCount = steadyRate * options.seconds
        let total = steadyCount + options.burst
        let devices = total / 100 + 1
        // Room for loading and for the nodes to start and arm; checked below.
        let start = Date().addingTimeInterval(Double(total) / 20_000 + 2 + 0.5 * Double(setup.nodes)).millisecondsSince1970
        let burstAt = start + Int64(options.seconds) * 1000 + 2000
        let fireAt: (Int) -> Int64 = { index in
            index < steadyCount ? start + Int64(index) * 1000 / Int64(steadyRate) : burstAt
        }

        if let url = setup.database {
            let store = try await PostgresStore.open(try PostgresLocation(url: url, passwordFile: nil, environment: [:]),
                                                     nodeID: "bench-loader")
            try await Fixtures.register(store, devices: devices)
            try await Fixtures.insert(count: total, devices: devices, fireAt: fireAt, with: store.bulkInsert)
            try await store.leave()
            await store.close()
        } else {
            _ = try await Fixtures.prepare(in: directory, count: total, devices: devices, fireAt: fireAt)
        }

        var nodes: [Process] = []
        defer { for node in nodes { stop(node) } }
        for index in 0..<setup.nodes {
            nodes.append(try startNode(index, setup: setup, herald: options.herald, directory: directory).process)
        }
        let ready = Date().millisecondsSince1970
        progress("cluster: \(setup.label) ready \(start - ready) ms before the first instant")
        if ready > start - 500 {
            progress("cluster: warning: that is too close; the first occurrences may be late for it")
        }
        let before = CPUSnapshot.take(nodes)

        // Done when every occurrence has an outcome (delivered to its inbox), or a minute after
        // the burst. Polled often from the burst on: when its last outcome is stored is what its
        // throughput is measured by (fired_at is the claim's start, shared by a whole batch).
        let deadline = Date(millisecondsSince1970: burstAt).addingTimeInterval(60)
        var burstDone: Int64?
        var burstStart: CPUSnapshot?
        var burstCPU: (nodes: [Double], postgres: Double) = ([], 0)
        while Date() < deadline {
            let untilBurst = burstAt - Date().millisecondsSince1970
            try await Task.sleep(for: .milliseconds(untilBurst > 1000 ? 500 : 50))
            let now = Date().millisecondsSince1970
            guard now >= burstAt else { continue }
            let started = burstStart ?? CPUSnapshot.take(nodes)
            burstStart = started
            if try outcomes(setup, postgres: postgres, directory: directory, scheduledFor: burstAt) >= options.burst {
                burstDone = now
                burstCPU = started.shares(until: CPUSnapshot.take(nodes))
                break
            }
        }
        var samples = try fireLog(setup, postgres: postgres, directory: directory)
        while samples.count < total, Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            samples = try fireLog(setup, postgres: postgres, directory: directory)
        }
        let wholeCPU = before.shares(until: CPUSnapshot.take(nodes))
        guard samples.count >= total else {
            throw OptionsError("\(setup.label): only \(samples.count) of \(total) occurrences delivered a minute after the burst")
        }
        let steady = samples.filter { $0.scheduledFor < burstAt }.map { Double($0.firedAt - $0.scheduledFor) / 1000 }
        let burstSeconds = max(0.001, Double((burstDone ?? burstAt) - burstAt) / 1000)
        let onPostgres = setup.database != nil
        return Measurement(steady: LatencySummary(steady), steadyRate: steadyRate,
                           burstPerSecond: Double(options.burst) / burstSeconds, nodeCPU: wholeCPU.nodes,
                           postgresCPU: onPostgres ? wholeCPU.postgres : nil, nodeBurstCPU: burstCPU.nodes,
                           postgresBurstCPU: onPostgres ? burstCPU.postgres : nil)
    }

    /// Starts one `herald serve` and waits until it listens (its timers are armed by then).
    static func startNode(_ index: Int, setup: Setup, herald: String, directory: String) throws -> (process: Process, port: Int) {
        var yaml = """
            listen: 127.0.0.1:0
            dataDir: \(directory)/node-\(index)
            logLevel: warning

            """
        if let url = setup.database {
            yaml += """
                storage:
                  url: \(url)
                node:
                  id: node-\(index)

                """
        } else {
            yaml = yaml.replacingOccurrences(of: "\(directory)/node-\(index)", with: directory)
        }
        return try HeraldNode.start(yaml: yaml, name: "node-\(index)", herald: herald, directory: directory)
    }

    static func stop(_ process: Process) { HeraldNode.stop(process) }

    /// (scheduled_for, fired_at) of every firing with an outcome.
    static func fireLog(_ setup: Setup, postgres: PostgresServer, directory: String) throws -> [(scheduledFor: Int64, firedAt: Int64)] {
        let sql = "SELECT scheduled_for, fired_at FROM delivery WHERE outcome <> 'pending'"
        if setup.database != nil {
            return try postgres.query(sql, database: "bench_\(setup.nodes)").compactMap { row in
                guard row.count == 2, let scheduled = Int64(row[0]), let fired = Int64(row[1]) else { return nil }
                return (scheduled, fired)
            }
        }
        let database = try RawSQLite(path: Fixtures.databasePath(in: directory), readOnly: true)
        let statement = try database.prepare(sql)
        var rows: [(scheduledFor: Int64, firedAt: Int64)] = []
        while try statement.step() { rows.append((statement.int64(0), statement.int64(1))) }
        return rows
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// How many firings due at `scheduledFor` have an outcome.
    static func outcomes(_ setup: Setup, postgres: PostgresServer, directory: String, scheduledFor: Int64) throws -> Int {
        let sql = "SELECT count(*) FROM delivery WHERE outcome <> 'pending' AND scheduled_for = \(scheduledFor)"
        if setup.database != nil {
            return Int(try postgres.query(sql, database: "bench_\(setup.nodes)").first?.first ?? "") ?? 0
        }
        let statement = try RawSQLite(path: Fixtures.databasePath(in: directory), readOnly: true).prepare(sql)
        return try statement.step() ? Int(statement.int64(0)) : 0
    }

    /// CPU seconds used so far by each node and by PostgreSQL, read at one instant.
    struct CPUSnapshot {
        var nodes: [Double]
        var postgres: Double
        var at: ContinuousClock.Instant

        static func take(_ nodes: [Process]) -> CPUSnapshot {
            CPUSnapshot(nodes: nodes.map { ProcessCPU.seconds(pid: $0.processIdentifier) ?? 0 }, postgres: postgresCPU(),
                        at: .now)
        }

        /// The share of one core each node, and PostgreSQL, used from this snapshot to `later`.
        func shares(until later: CPUSnapshot) -> (nodes: [Double], postgres: Double) {
            let seconds = max(0.001, ClusterBenchmark.seconds(later.at - at))
            return (zip(nodes, later.nodes).map { ($1 - $0) / seconds }, (later.postgres - postgres) / seconds)
        }
    }

    /// CPU seconds used so far by every running `postgres` process (the server and its backends).
    static func postgresCPU() -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var total = 0.0
        for entry in entries {
            guard let pid = Int32(entry),
                  let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                  name.trimmingCharacters(in: .whitespacesAndNewlines) == "postgres" else { continue }
            total += ProcessCPU.seconds(pid: pid) ?? 0
        }
        return total
    }
}
