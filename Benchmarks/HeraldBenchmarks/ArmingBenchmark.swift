import Foundation
import HeraldStorage

/// Opening the store and arming every pending notification, against a bare SQLite scan.
///
/// The data set is prepared once (not timed); each measurement then runs in a fresh child
/// process, alternating herald and the scan for `rounds` rounds, and the medians are reported.
enum ArmingBenchmark {
    static let goalSeconds = 3.0
    static let goalBytes = 300.0
    static let goalSize = 1_000_000

    static func run(_ options: Options) async throws -> [ResultRow] {
        let count = options.notifications
        let directory = try ScratchDirectory(under: options.scratch, name: "arming")
        defer { directory.remove() }

        progress("arming: preparing \(Format.grouped(count)) notifications over \(Format.grouped(options.devices)) devices")
        let preparation = Stopwatch()
        try await prepare(in: directory.path, count: count, devices: options.devices)
        progress(String(format: "arming: prepared in %.1f s (not counted)", preparation.seconds))

        var herald: [ArmingProbe.Result] = []
        var scan: [ArmingProbe.Result] = []
        for round in 0..<options.rounds {
            // Alternate which goes first so neither always gets the warmer cache.
            for mode in round % 2 == 0 ? ["scan", "herald"] : ["herald", "scan"] {
                let output = try ChildProcess.runSelf(["arm-probe", "--mode", mode, "--data-dir", directory.path])
                let result = try ArmingProbe.Result(parsing: output)
                guard result.entries == count else {
                    throw OptionsError("\(mode) holds \(result.entries) entries, expected \(count)")
                }
                progress("arming: round \(round + 1) \(mode): \(Format.seconds(result.seconds)), "
                         + "\(Format.bytes(Double(result.residentBytes) / Double(count))) per notification")
                if mode == "herald" { herald.append(result) } else { scan.append(result) }
            }
        }

        let seconds = median(herald.map(\.seconds))
        let scanSeconds = median(scan.map(\.seconds))
        let bytes = median(herald.map { Double($0.residentBytes) }) / Double(count)
        let scanBytes = median(scan.map { Double($0.residentBytes) }) / Double(count)
        let atGoalSize = count >= goalSize
        let label = Format.count(count)
        return [
            ResultRow(benchmark: "arm \(label) pending: open store + SchedulerEngine.load() (median of \(options.rounds))",
                      measured: Format.seconds(seconds),
                      reference: "\(Format.seconds(scanSeconds)) bare SQLite scan",
                      ratio: seconds / scanSeconds,
                      goal: "≤ 3 s for 1M", met: atGoalSize ? seconds <= goalSeconds : nil),
            ResultRow(benchmark: "RSS per pending notification after load (\(label))",
                      measured: Format.bytes(bytes),
                      reference: "\(Format.bytes(scanBytes)) bare SQLite scan",
                      ratio: bytes / scanBytes,
                      goal: "≤ 300 B", met: atGoalSize ? bytes <= goalBytes : nil),
        ]
    }

    /// Fire instants spread pseudo-randomly over the day starting an hour from now, so the heap is
    /// built from unordered input and nothing comes due during the benchmark.
    private static func prepare(in directory: String, count: Int, devices: Int) async throws {
        let start = Date().millisecondsSince1970 + 3_600_000
        let store = try await Fixtures.prepare(in: directory, count: count, devices: devices) { index in
            start + Int64(truncatingIfNeeded: (UInt64(index) &* 2_654_435_761) % 86_400_000)
        }
        // Dropping the last reference closes the database before the children open it.
        withExtendedLifetime(store) {}
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
