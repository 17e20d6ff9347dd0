import Foundation
import HeraldCoalescer
import HeraldCore
import HeraldStorage

/// The coalescer in process: events folded per second by the pure `DeviceEventQueue.ingest`,
/// against the least a coalescer can do (a dictionary keeping the latest value per device, kind
/// and key); and by the coalescer's report use case on SQLite (`Coalescer.report`), one or 20 events per call, against the storage
/// floor (a bare SQLite upsert of one row per event, the same number of events per transaction).
enum CoalescerBenchmark {
    static func run(_ options: Options) async throws -> [ResultRow] {
        var rows = pure(events: options.events, devices: options.eventDevices, rounds: options.rounds)
        let directory = try ScratchDirectory(under: options.scratch, name: "coalescer")
        defer { directory.remove() }
        let store = try SQLiteStore(directory: directory.path)
        progress("coalescer: registering \(Format.grouped(options.eventDevices)) devices (asleep: notRunning)")
        try await Fixtures.register(store, devices: options.eventDevices)
        for perCall in [1, 20] {
            let calls = max(1, (perCall == 1 ? options.storeEvents / 10 : options.storeEvents) / perCall)
            rows.append(try await stored(store: store, directory: directory.path, devices: options.eventDevices,
                                         calls: calls, perCall: perCall))
        }
        return rows
    }

    // MARK: Pure

    struct SlotKey: Hashable {
        var kind: String
        var key: String?
    }

    /// Event `i` goes to device `i mod devices`, and each pass over the devices brings the next
    /// event of the cycle, so events for one device arrive interleaved with everyone else's.
    static func pure(events: Int, devices: Int, rounds: Int) -> [ResultRow] {
        let catalog = EventCatalog.builtIn
        var queueRates: [Double] = [], floorRates: [Double] = []
        var slots = 0, refused = 0
        for round in 0..<rounds {
            for mode in round % 2 == 0 ? ["floor", "queue"] : ["queue", "floor"] {
                if mode == "queue" {
                    var queues = [DeviceEventQueue](repeating: DeviceEventQueue(), count: devices)
                    let stopwatch = Stopwatch()
                    for index in 0..<events {
                        do {
                            try queues[index % devices].ingest(EventTemplates.cycle(index / devices), catalog: catalog)
                        } catch {
                            refused += 1
                        }
                    }
                    queueRates.append(Double(events) / stopwatch.seconds)
                    slots = queues.reduce(0) { $0 + $1.slotCount }
                } else {
                    var tables = [[SlotKey: JSONValue?]](repeating: [:], count: devices)
                    let stopwatch = Stopwatch()
                    for index in 0..<events {
                        let event = EventTemplates.cycle(index / devices)
                        tables[index % devices].updateValue(event.value, forKey: SlotKey(kind: event.kind, key: event.key))
                    }
                    floorRates.append(Double(events) / stopwatch.seconds)
                    withExtendedLifetime(tables) {}
                }
            }
        }
        let rate = ArmingBenchmark.median(queueRates), floor = ArmingBenchmark.median(floorRates)
        progress(String(format: "coalescer: pure ingest %.0f events/s, dictionary %.0f/s; %.1f slots per device; %d refused",
                        rate, floor, Double(slots) / Double(devices), refused))
        return [ResultRow(
            benchmark: "coalesce in process: DeviceEventQueue.ingest, \(Format.count(events)) events over \(Format.count(devices)) devices (median of \(rounds))",
            measured: Format.rate(rate, unit: "events/s") + (refused > 0 ? " (\(refused) refused)" : ""),
            reference: "\(Format.rate(floor, unit: "events/s")) bare Dictionary upsert (latest per device, kind, key)",
            ratio: rate / floor)]
    }

    // MARK: Stored

    static func stored(store: SQLiteStore, directory: String, devices: Int, calls: Int, perCall: Int) async throws -> ResultRow {
        func batch(_ call: Int) -> (device: Int, events: [SystemEvent]) {
            (call % devices, (0..<perCall).map { EventTemplates.cycle((call / devices) * perCall + $0) })
        }
        let events = calls * perCall
        progress("coalescer: Coalescer.report on SQLite, \(Format.grouped(events)) events, \(perCall) per call")
        let coalescer = Coalescer(store: store, streams: LiveStreams())
        let app = App(id: Fixtures.appID)
        let stopwatch = Stopwatch()
        for call in 0..<calls {
            let (device, events) = batch(call)
            _ = try await coalescer.report(events, app: app, deviceID: Fixtures.deviceID(device))
        }
        let rate = Double(events) / stopwatch.seconds

        progress("coalescer: bare SQLite upsert floor, \(Format.grouped(events)) rows, \(perCall) per transaction")
        let database = try RawSQLite(path: (directory as NSString).appendingPathComponent("floor.sqlite"))
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        try database.execute("""
            CREATE TABLE IF NOT EXISTS event_floor (device TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
                value TEXT, PRIMARY KEY (device, kind, key)) WITHOUT ROWID
            """)
        let upsert = try database.prepare("""
            INSERT INTO event_floor (device, kind, key, value) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (device, kind, key) DO UPDATE SET value = excluded.value
            """)
        let encoder = JSONEncoder()
        let values = EventTemplates.all.map { event -> RawSQLite.Statement.Value in
            guard let value = event.value, let data = try? encoder.encode(value) else { return .null }
            return .text(String(decoding: data, as: UTF8.self))
        }
        let floorStopwatch = Stopwatch()
        for call in 0..<calls {
            let device = Fixtures.deviceID(call % devices)
            try database.execute("BEGIN IMMEDIATE")
            for offset in 0..<perCall {
                let index = ((call / devices) * perCall + offset) % EventTemplates.all.count
                let event = EventTemplates.all[index]
                upsert.bind(values: [.text(device), .text(event.kind), .text(event.key ?? ""), values[index]])
                _ = try upsert.step()
            }
            try database.execute("COMMIT")
        }
        let floor = Double(events) / floorStopwatch.seconds
        return ResultRow(
            benchmark: "coalesce in process: Coalescer.report on SQLite, \(perCall) event\(perCall == 1 ? "" : "s") per call, \(Format.count(events)) events",
            measured: Format.rate(rate, unit: "events/s"),
            reference: "\(Format.rate(floor, unit: "events/s")) bare SQLite upsert, 1 row per event, \(perCall) per transaction",
            ratio: rate / floor)
    }
}
