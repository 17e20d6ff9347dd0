import Foundation
import HeraldDelivery
import HeraldScheduler
import HeraldStorage

/// The child-process side of the arming benchmark: one measurement in a fresh process.
///
/// `herald` opens the store and loads the engine (what `herald serve` does at start); `scan` is
/// the storage floor, a bare SQLite scan of the same (next_fire_at, key) pairs into an array.
/// Both report elapsed seconds, resident bytes gained, and how many entries they hold.
enum ArmingProbe {
    struct Result: Sendable {
        var seconds: Double
        var residentBytes: Int
        var entries: Int

        var line: String { "PROBE \(seconds) \(residentBytes) \(entries)" }

        init(seconds: Double, residentBytes: Int, entries: Int) {
            self.seconds = seconds
            self.residentBytes = residentBytes
            self.entries = entries
        }

        /// Reads the `PROBE` line a child printed.
        init(parsing output: String) throws {
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("PROBE ") }) else {
                throw OptionsError("arm-probe printed no result")
            }
            let fields = line.split(separator: " ")
            guard fields.count == 4, let seconds = Double(fields[1]), let bytes = Int(fields[2]),
                  let entries = Int(fields[3]) else {
                throw OptionsError("unreadable arm-probe result '\(line)'")
            }
            self.init(seconds: seconds, residentBytes: bytes, entries: entries)
        }
    }

    static func main(_ options: Options) async throws {
        let result: Result
        switch options.mode {
        case "herald": result = try await herald(directory: options.dataDirectory)
        case "scan": result = try scan(path: Fixtures.databasePath(in: options.dataDirectory))
        default: throw OptionsError("unknown --mode \(options.mode)")
        }
        print(result.line)
    }

    static func herald(directory: String) async throws -> Result {
        let before = ResidentMemory.bytes() ?? 0
        let stopwatch = Stopwatch()
        let store = try SQLiteStore(directory: directory)
        let engine = SchedulerEngine(store: store, channel: RecordingChannel())
        try await engine.load()
        let seconds = stopwatch.seconds
        let entries = await engine.armedCount
        let after = ResidentMemory.bytes() ?? 0
        withExtendedLifetime(store) {}
        return Result(seconds: seconds, residentBytes: after - before, entries: entries)
    }

    static func scan(path: String) throws -> Result {
        let before = ResidentMemory.bytes() ?? 0
        let stopwatch = Stopwatch()
        let database = try RawSQLite(path: path)
        let statement = try database.prepare("SELECT next_fire_at, key FROM notification")
        var pairs: [(fireAt: Int64, key: Int64)] = []
        while try statement.step() {
            pairs.append((statement.int64(0), statement.int64(1)))
        }
        let seconds = stopwatch.seconds
        let after = ResidentMemory.bytes() ?? 0
        withExtendedLifetime((database, statement, pairs)) {}
        return Result(seconds: seconds, residentBytes: after - before, entries: pairs.count)
    }
}
