import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStorage
import HeraldTestSupport

/// `herald-bench postgres-schedule`: schedules through the API on one `herald serve` node over
/// PostgreSQL, beside `pgbench` running the transaction a schedule needs at the least, in the same
/// database, with as many clients as wrk has connections:
///
///     BEGIN; lock the device row; count its pending rows; insert one; COMMIT
///
/// The floor is that fixed script, whatever shape Herald's own statements take. Both run for
/// `seconds`, one after the other, on one throwaway PostgreSQL; `/healthz` on the same node is
/// shown too, for the HTTP layer's own ceiling.
enum PostgresScheduleBenchmark {
    static let goal = 0.5
    static let clients = 16

    static func run(_ options: Options) async throws -> [ResultRow] {
        guard !options.herald.isEmpty else { throw OptionsError("postgres-schedule needs --herald BIN") }
        let wrkScript = options.wrkScript
        let scratch = try ScratchDirectory(under: options.scratch, name: "postgres-schedule")
        defer { scratch.remove() }
        progress("postgres-schedule: starting PostgreSQL")
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let database = "bench_schedule"
        try postgres.createDatabase(database)
        let url = postgres.url(database: database)

        let store = try await PostgresStore.open(try PostgresLocation(url: url, passwordFile: nil, environment: [:]),
                                                 nodeID: "bench-loader")
        try await Fixtures.register(store, devices: options.devices)
        try await store.leave()
        await store.close()

        let yaml = """
            listen: 127.0.0.1:0
            dataDir: \(scratch.path)/node
            logLevel: warning
            storage:
              url: \(url)
            node:
              id: node-0

            """
        let (node, port) = try HeraldNode.start(yaml: yaml, name: "node-0", herald: options.herald, directory: scratch.path)
        defer { HeraldNode.stop(node) }
        let base = "http://127.0.0.1:\(port)"

        progress("postgres-schedule: wrk GET /healthz for \(options.seconds) s")
        let health = try Wrk.run(url: "\(base)/healthz", seconds: options.seconds, connections: clients)
        progress("postgres-schedule: wrk POST notifications for \(options.seconds) s over \(options.devices) devices")
        let posts = try Wrk.run(url: base, seconds: options.seconds, connections: clients, script: wrkScript,
                                scriptArguments: [String(options.devices), String(Wrk.threads)])
        HeraldNode.stop(node)
        progress("postgres-schedule: the schedule floor (Hummingbird + postgres-nio, no Herald) for \(options.seconds) s")
        let bare = try floorServer(url: url, scratch: scratch) { base in
            try Wrk.run(url: base, seconds: options.seconds, connections: clients, script: wrkScript,
                        scriptArguments: [String(options.devices), String(Wrk.threads)])
        }
        progress("postgres-schedule: pgbench, \(clients) clients, for \(options.seconds) s")
        let floor = try pgbench(url: url, devices: options.devices, seconds: options.seconds, scratch: scratch)

        let failed = posts.non2xx + posts.socketErrors
        let ratio = posts.rate / floor
        return [ResultRow(
            benchmark: "schedule floor: the same route on Hummingbird + postgres-nio, no Herald (one read, one guarded write)",
            measured: "\(Format.grouped(Int(bare.rate))) POST/s (non-2xx \(bare.non2xx), socket errors \(bare.socketErrors))",
            reference: "\(Format.grouped(Int(floor))) tx/s pgbench (the row below)",
            ratio: bare.rate / floor, goal: "— (what Herald could reach at best on this stack)"), ResultRow(
            benchmark: "schedule POST via HTTP, one PostgreSQL node (herald serve, \(clients) connections, \(Format.grouped(options.devices)) devices)",
            measured: "\(Format.grouped(Int(posts.rate))) POST/s (non-2xx \(posts.non2xx), socket errors \(posts.socketErrors); /healthz \(Format.grouped(Int(health.rate))) GET/s)",
            reference: "\(Format.grouped(Int(floor))) tx/s pgbench, \(clients) clients: lock the device, count its pending, insert, commit",
            ratio: ratio, goal: "≥ \(Format.ratio(goal)), non-2xx ≈ 0",
            met: ratio >= goal && posts.requests > 0 && failed * 1000 <= posts.requests)]
    }

    /// Runs `body` against `herald-bench schedule-floor` (this executable) serving `url`.
    static func floorServer(url: String, scratch: ScratchDirectory, _ body: (String) throws -> Wrk.Result) throws -> Wrk.Result {
        let bench = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let (process, port) = try HeraldNode.launch(bench, ["schedule-floor", "--url", url], marker: ScheduleFloorServer.marker,
                                                    name: "floor", directory: scratch.path)
        defer { HeraldNode.stop(process) }
        return try body("http://127.0.0.1:\(port)")
    }

    /// The floor's transactions per second: pgbench's own count, connections excluded.
    static func pgbench(url: String, devices: Int, seconds: Int, scratch: ScratchDirectory) throws -> Double {
        let script = "\(scratch.path)/schedule.pgbench"
        try """
            \\set d random(0, \(devices - 1))
            \\set n random(1, 2000000000)
            BEGIN;
            SELECT 1 FROM device WHERE app_id = '\(Fixtures.appID)' AND id = 'dev-' || :d FOR NO KEY UPDATE;
            SELECT count(*) FROM notification WHERE app_id = '\(Fixtures.appID)' AND device_id = 'dev-' || :d;
            INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, repeat_unit, content, next_index,
                next_fire_at, revision, created_at)
            VALUES ('\(Fixtures.appID)', 'dev-' || :d, 'pgbench-' || :client_id || '-' || :n, '2030-01-01T07:30:00',
                'Europe/Paris', 'day', '{"alert":{"body":"hi"}}', 0, 1893479400000, 1, 0);
            COMMIT;

            """.write(toFile: script, atomically: true, encoding: .utf8)
        // A count of transactions, not -T: pgbench's duration is a SIGALRM, which a child of this
        // process may inherit blocked, and the run would never end. About `seconds` at 4,000/s.
        let perClient = max(50, seconds * 4_000 / clients)
        let output = try ChildProcess.runTool("pgbench", ["-n", "-c", "\(clients)", "-j", "2", "-t", "\(perClient)",
                                                          "-f", script, url])
        for line in output.split(separator: "\n") where line.hasPrefix("tps = ") {
            if let value = line.split(separator: " ").dropFirst(2).first.flatMap({ Double($0) }) { return value }
        }
        throw OptionsError("unreadable pgbench output: \(output.suffix(400))")
    }
}
