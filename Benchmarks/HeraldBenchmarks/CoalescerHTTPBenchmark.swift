import Foundation
import HeraldCore
import Synchronization

/// The coalescer through HTTP, against a server `run.sh` started on a fresh data directory:
///
/// 1. registers the app and `devices` devices, each put to sleep (`background`, then
///    `suspended`);
/// 2. fills every queue to its bound (every event variant once per device), then sends `events`
///    events, 20 per `POST …/events`, in passes over every device; it reads the server's
///    resident memory, the stored queues and the database size before any event, once the
///    queues are full, and at the end;
/// 3. runs `wrk` on `POST …/events` with one event per request, beside `wrk` on `GET /healthz`;
/// 4. times `POST …/wake` for devices with every built-in kind pending, interleaved with
///    `GET /healthz` round trips on the same connection.
enum CoalescerHTTPBenchmark {
    static let perRequest = 20
    static let clients = 4
    /// "Must not grow with the event count": growth once the queues are full, per event.
    static let goalGrowthPerEvent = 1.0
    static let goalSize = 1_000_000

    struct Snapshot {
        var resident: Int
        var databaseBytes: Int
        var walBytes: Int
        var queues: Int
        var queueBytes: Int

        var diskBytes: Int { databaseBytes + walBytes }
    }

    static func run(_ options: Options) async throws -> [ResultRow] {
        let port = options.port, devices = options.eventDevices
        guard options.serverPID > 0, !options.dataDirectory.isEmpty else {
            throw OptionsError("coalesce-http needs --port, --server-pid and --data-dir")
        }
        let label = options.serverLabel.isEmpty ? "" : " (\(options.serverLabel))"

        progress("coalesce-http: registering \(Format.grouped(devices)) devices and putting them to sleep")
        try register(port: port, devices: devices)
        let before = try snapshot(options)

        // First every event variant once per device, so each queue holds every kind and key it
        // will ever hold (its bound); then `events` more, `perRequest` per request, in passes.
        progress("coalesce-http: filling every queue: all \(EventTemplates.all.count) event variants to each device")
        let fill = EventTemplates.body(EventTemplates.all)
        let fillFailures = try parallel(port: port, count: devices) { connection, index in
            try connection.request("POST", "/v1/apps/bench.app/devices/dev-\(index)/events", body: fill).status
        }
        guard fillFailures == 0 else { throw OptionsError("filling the queues: \(fillFailures) of \(devices) requests failed") }
        let filled = try snapshot(options)
        progress("coalesce-http: queues filled: " + describe(filled))

        let passes = max(1, options.events / (devices * perRequest))
        let events = passes * devices * perRequest
        var batchSeconds = 0.0
        var batchFailures = 0
        for pass in 0..<passes {
            let body = EventTemplates.body((0..<perRequest).map { EventTemplates.cycle(pass * perRequest + $0) })
            let stopwatch = Stopwatch()
            batchFailures += try parallel(port: port, count: devices) { connection, index in
                try connection.request("POST", "/v1/apps/bench.app/devices/dev-\(index)/events", body: body).status
            }
            batchSeconds += stopwatch.seconds
            progress("coalesce-http: pass \(pass + 1) of \(passes) done")
        }
        let after = try snapshot(options)
        progress("coalesce-http: \(Format.grouped(events)) events done: " + describe(after))
        let batchRate = Double(devices * passes) / batchSeconds

        // The same connections on the HTTP floor, for the batched rate's reference.
        let healthRequests = min(devices * passes, 20_000)
        let healthStopwatch = Stopwatch()
        let healthFailures = try parallel(port: port, count: healthRequests) { connection, _ in
            try connection.request("GET", "/healthz").status
        }
        let healthRate = Double(healthRequests) / healthStopwatch.seconds

        // wrk: one event per request, beside GET /healthz.
        let bodies = (options.scratch as NSString).appendingPathComponent("herald-bench-events-\(UUID().uuidString.prefix(8)).txt")
        try EventTemplates.all.map { EventTemplates.body([$0]) }.joined(separator: "\n")
            .write(toFile: bodies, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bodies) }
        progress("coalesce-http: wrk GET /healthz for \(options.httpSeconds) s (reference)")
        let health = try Wrk.run(url: "http://127.0.0.1:\(port)/healthz", seconds: options.httpSeconds)
        progress("coalesce-http: wrk POST events (1 per request) for \(options.httpSeconds) s")
        let single = try Wrk.run(url: "http://127.0.0.1:\(port)", seconds: options.httpSeconds, script: options.eventsScript,
                                 scriptArguments: ["\(devices)", "\(Wrk.threads)", bodies])

        // Wake round trips, each for a device with every kind pending, beside /healthz.
        let wakes = min(options.wakes, devices)
        progress("coalesce-http: \(wakes) wakes with every kind pending, interleaved with GET /healthz")
        let connection = try HTTPConnection(port: port)
        let pending = EventTemplates.body(EventTemplates.everyKindPending)
        var wakeLatency: [Double] = [], healthLatency: [Double] = []
        var delivered = 0, wakeFailures = 0
        for index in 0..<wakes {
            let queued = try connection.request("POST", "/v1/apps/bench.app/devices/dev-\(index)/events", body: pending)
            if queued.status != 200 { wakeFailures += 1 }
            var stopwatch = Stopwatch()
            let woke = try connection.request("POST", "/v1/apps/bench.app/devices/dev-\(index)/wake")
            wakeLatency.append(stopwatch.seconds)
            stopwatch = Stopwatch()
            _ = try connection.request("GET", "/healthz")
            healthLatency.append(stopwatch.seconds)
            let kinds = notificationKinds(woke)
            if woke.status != 200 || !Set(EventKind.allCases.map(\.rawValue)).isSubset(of: kinds.kinds) { wakeFailures += 1 }
            delivered += kinds.count
        }
        let wake = LatencySummary(wakeLatency), floor = LatencySummary(healthLatency)

        let judged = events >= goalSize
        let shape = "\(Format.count(devices)) asleep devices"
        var rows: [ResultRow] = []
        rows.append(ResultRow(
            benchmark: "coalesce via HTTP\(label): POST …/events, 1 event per request, wrk -t\(Wrk.threads) -c\(Wrk.connections) \(options.httpSeconds) s, \(shape)",
            measured: "\(Format.rate(single.rate, unit: "events/s")) (non-2xx \(single.non2xx); socket errors \(single.socketErrors); of \(Format.grouped(single.requests)))",
            reference: "\(Format.rate(health.rate, unit: "GET/s")) /healthz, same server",
            ratio: single.rate / health.rate))
        rows.append(ResultRow(
            benchmark: "coalesce via HTTP\(label): POST …/events, \(perRequest) events per request, \(clients) keep-alive connections, \(Format.count(events)) events",
            measured: "\(Format.rate(batchRate, unit: "POST/s")) = \(Format.rate(batchRate * Double(perRequest), unit: "events/s")) (non-2xx \(batchFailures))",
            reference: "\(Format.rate(healthRate, unit: "GET/s")) /healthz, same \(clients) connections (non-2xx \(healthFailures))",
            ratio: batchRate / healthRate))
        rows += memoryRows(before: before, filled: filled, after: after, devices: devices, events: events, judged: judged,
                           label: label)
        let meanDelivered = Double(delivered) / Double(max(1, wakes))
        let wakeNote = String(format: " (%.1f notifications per wake; %d not every kind)", meanDelivered, wakeFailures)
        rows.append(ResultRow(
            benchmark: "wake via HTTP\(label): POST …/wake round trip, every built-in kind pending, \(wakes) devices: p50",
            measured: Format.milliseconds(wake.p50) + wakeNote,
            reference: "\(Format.milliseconds(floor.p50)) GET /healthz, same connection, interleaved",
            ratio: wake.p50 / floor.p50))
        rows.append(ResultRow(
            benchmark: "wake via HTTP\(label): POST …/wake round trip, every built-in kind pending, \(wakes) devices: p99",
            measured: Format.milliseconds(wake.p99),
            reference: "\(Format.milliseconds(floor.p99)) GET /healthz, same connection, interleaved",
            ratio: wake.p99 / floor.p99))
        return rows
    }

    static func memoryRows(before: Snapshot, filled: Snapshot, after: Snapshot, devices: Int, events: Int, judged: Bool,
                           label: String) -> [ResultRow] {
        func row(_ name: String, _ pick: (Snapshot) -> Int, extra: String = "") -> ResultRow {
            let growth = Double(pick(after) - pick(filled))
            let perEvent = growth / Double(events)
            return ResultRow(
                benchmark: "coalescer memory\(label), \(Format.count(devices)) asleep devices: \(name) before and after \(Format.count(events)) events",
                measured: "\(Format.megabytes(Double(pick(after)))) after (\(Format.signedMegabytes(growth)), "
                    + String(format: "%.3f B/event", perEvent) + "\(extra))",
                reference: "\(Format.megabytes(Double(pick(filled)))) before: queues full (\(Format.megabytes(Double(pick(before)))) with none)",
                ratio: Double(pick(after)) / Double(pick(filled)),
                goal: "flat (≤ 1 B/event)",
                met: judged ? perEvent <= goalGrowthPerEvent : nil)
        }
        let perDevice = String(format: "; %.0f B per device", Double(after.queueBytes) / Double(max(1, after.queues)))
        return [
            row("server RSS", \.resident),
            row("stored queues (sum of JSON)", \.queueBytes, extra: perDevice),
            row("database + WAL on disk", \.diskBytes, extra: "; WAL \(Format.megabytes(Double(after.walBytes)))"),
        ]
    }

    static func describe(_ snapshot: Snapshot) -> String {
        "server RSS \(Format.megabytes(Double(snapshot.resident))), queues \(snapshot.queues) holding "
            + "\(Format.megabytes(Double(snapshot.queueBytes))), database \(Format.megabytes(Double(snapshot.databaseBytes))) "
            + "+ WAL \(Format.megabytes(Double(snapshot.walBytes)))"
    }

    /// Kinds in a wake response's `notifications`, and how many notifications it holds.
    static func notificationKinds(_ response: HTTPConnection.Response) -> (kinds: Set<String>, count: Int) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
              let list = object["notifications"] as? [[String: Any]] else { return ([], 0) }
        return (Set(list.compactMap { $0["kind"] as? String }), list.count)
    }

    // MARK: Setup and measures

    static func register(port: Int, devices: Int) throws {
        let connection = try HTTPConnection(port: port)
        let app = try connection.request("PUT", "/v1/apps/bench.app", body: "{}")
        guard (200..<300).contains(app.status) else {
            throw OptionsError("PUT /v1/apps/bench.app answered \(app.status): \(String(decoding: app.body, as: UTF8.self))")
        }
        let failures = try parallel(port: port, count: devices) { connection, index in
            let base = "/v1/apps/bench.app/devices/dev-\(index)"
            for (path, body) in [(base, #"{"timeZone":"Europe/Paris"}"#), ("\(base)/state", #"{"state":"background"}"#),
                                 ("\(base)/state", #"{"state":"suspended"}"#)] {
                let response = try connection.request("PUT", path, body: body)
                guard (200..<300).contains(response.status) else {
                    progress("coalesce-http: PUT \(path) answered \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
                    return response.status
                }
            }
            return 200
        }
        guard failures == 0 else { throw OptionsError("registering devices: \(failures) of \(devices) failed") }
    }

    /// Runs `work(connection, index)` for every index below `count` over `clients` keep-alive
    /// connections, one thread each; returns how many answered outside 2xx.
    static func parallel(port: Int, count: Int, _ work: @escaping @Sendable (HTTPConnection, Int) throws -> Int) throws -> Int {
        final class Tally: Sendable {
            let failures = Atomic<Int>(0)
            let firstError = Mutex<String?>(nil)
        }
        let tally = Tally()
        let finished = DispatchSemaphore(value: 0)
        for client in 0..<clients {
            let thread = Thread {
                defer { finished.signal() }
                do {
                    let connection = try HTTPConnection(port: port)
                    for index in stride(from: client, to: count, by: clients) {
                        let status = try work(connection, index)
                        if !(200..<300).contains(status) { tally.failures.add(1, ordering: .relaxed) }
                    }
                } catch {
                    tally.firstError.withLock { $0 = $0 ?? "\(error)" }
                }
            }
            thread.start()
        }
        for _ in 0..<clients { finished.wait() }
        if let error = tally.firstError.withLock({ $0 }) { throw OptionsError(error) }
        return tally.failures.load(ordering: .relaxed)
    }

    /// The server's resident memory and what the store holds, after a second's pause so the
    /// server has finished what it was doing.
    static func snapshot(_ options: Options) throws -> Snapshot {
        Thread.sleep(forTimeInterval: 1)
        let path = Fixtures.databasePath(in: options.dataDirectory)
        func size(_ file: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0
        }
        let database = try RawSQLite(path: path, readOnly: true)
        let statement = try database.prepare("SELECT count(*), coalesce(sum(length(queue)), 0) FROM device_events")
        _ = try statement.step()
        let queues = Int(statement.int64(0)), queueBytes = Int(statement.int64(1))
        statement.reset()
        guard let resident = ResidentMemory.bytes(pid: options.serverPID) else {
            throw OptionsError("the server (pid \(options.serverPID)) is gone")
        }
        return Snapshot(resident: resident, databaseBytes: size(path), walBytes: size(path + "-wal"),
                        queues: queues, queueBytes: queueBytes)
    }
}
