import Foundation
import HeraldScheduler
import HeraldStorage

/// Fire lateness of the real engine (real SQLiteStore, SystemClock, `run()` in a task) against
/// the timer floor. A burst's throughput is `sqlite-burst`'s row (SQLiteBurstBenchmark), against
/// a bare SQLite loop doing the same claim in batches.
enum FiringBenchmark {
    static let goalP99 = 0.005
    static let goalRate = 10_000

    static func run(_ options: Options) async throws -> [ResultRow] {
        var rows: [ResultRow] = []

        // A burst: every occurrence due at the same instant, like everyone's 07:30 alarm.
        let burst = options.burst
        let burstOffsets = [Int64](repeating: 0, count: burst)
        progress("firing: timer floor, burst of \(Format.grouped(burst))")
        let burstFloor = await TimerFloor.run(start: nextWholeSecond(after: 0.5), offsets: burstOffsets)
        progress("firing: engine, burst of \(Format.grouped(burst))")
        let burstRun = try await engineRun(offsets: burstOffsets, scratch: options.scratch)
        progress("firing: burst engine handed over in \(burstRun.observation.batchSummary)")
        let burstLabel = "burst: \(Format.count(burst)) due at one instant"
        rows += latencyRows(burstLabel, burstRun.observation, burstFloor, goal: nil)

        // Steady: `rate` per second for `seconds`, spread evenly over each second.
        let steadyCount = options.rate * options.seconds
        let steadyOffsets = (0..<steadyCount).map { Int64($0) * 1000 / Int64(options.rate) }
        progress("firing: timer floor, \(Format.grouped(options.rate))/s for \(options.seconds) s")
        let steadyFloor = await TimerFloor.run(start: nextWholeSecond(after: 0.5), offsets: steadyOffsets)
        progress("firing: engine, \(Format.grouped(options.rate))/s for \(options.seconds) s")
        let steadyRun = try await engineRun(offsets: steadyOffsets, scratch: options.scratch)
        let steadyLabel = "steady: \(Format.count(options.rate))/s for \(options.seconds) s"
        reportBySecond(steadyRun.observation, perSecond: options.rate)
        rows += latencyRows(steadyLabel, steadyRun.observation, steadyFloor,
                            goal: options.rate >= goalRate ? goalP99 : nil)
        rows.append(earlyRow(steadyLabel, steadyRun.observation, steadyFloor))
        return rows
    }

    static func devices(for count: Int) -> Int { max(1, count / 100) }

    /// Progress only: lateness p99 and max for each second of a steady run, to tell a backlog
    /// that builds up from a single stall. Samples arrive in firing order, which is instant order
    /// within a batch and across batches, so consecutive runs of `perSecond` samples are seconds.
    static func reportBySecond(_ observation: FiringObservation, perSecond: Int) {
        var second = 0
        var parts: [String] = []
        while second * perSecond < observation.lateness.count {
            let slice = observation.lateness[(second * perSecond)..<min((second + 1) * perSecond, observation.lateness.count)]
            let summary = LatencySummary(Array(slice))
            parts.append(String(format: "%.1f/%.1f", summary.p99 * 1000, summary.max * 1000))
            second += 1
        }
        progress("firing: steady engine handed over in \(observation.batchSummary)")
        progress("firing: steady lateness by second, p99/max ms: \(parts.joined(separator: " "))")
    }

    /// Wall-clock milliseconds of the first whole second at least `lead` seconds from now.
    static func nextWholeSecond(after lead: Double) -> Int64 {
        let earliest = Date().addingTimeInterval(lead).millisecondsSince1970
        return (earliest / 1000 + 1) * 1000
    }

    struct EngineRun {
        var start: Date
        var observation: FiringObservation
    }

    /// Stores one notification per offset (100 per device), due at `start + offset` ms, where the
    /// start is far enough ahead to prepare, load and start the engine; then lets the engine fire
    /// them all. Retries with a longer lead if preparation outran it.
    static func engineRun(offsets: [Int64], scratch: String) async throws -> EngineRun {
        let count = offsets.count
        var lead = 2.0 + Double(count) * 40e-6
        for _ in 0..<4 {
            let directory = try ScratchDirectory(under: scratch, name: "firing")
            defer { directory.remove() }
            let start = nextWholeSecond(after: lead)
            let store = try await Fixtures.prepare(in: directory.path, count: count, devices: devices(for: count)) {
                start + offsets[$0]
            }
            let recorder = LatenessRecorder(expected: count)
            let engine = SchedulerEngine(store: store, channel: LatenessChannel(recorder: recorder), clock: SystemClock())
            try await engine.load()
            let running = Task { try await engine.run() }
            let startDate = Date(millisecondsSince1970: start)
            let margin = startDate.timeIntervalSinceNow
            guard margin > 0.25 else {
                running.cancel()
                _ = try? await running.value
                progress(String(format: "firing: preparation left only %.2f s before the first instant; retrying with a longer lead", margin))
                lead *= 2
                continue
            }
            // Generous bound: the last instant, plus time for a slow machine to drain the rest.
            let deadline = Date(millisecondsSince1970: start + (offsets.last ?? 0)).addingTimeInterval(60 + Double(count) * 1e-3)
            while recorder.count < count, Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            // Let the dispatcher store the last outcomes before stopping the engine.
            _ = await engine.dispatcher.settle(timeout: .seconds(10))
            running.cancel()
            _ = try? await running.value
            guard recorder.count >= count else {
                throw OptionsError("engine fired \(recorder.count) of \(count) occurrences before the deadline")
            }
            return EngineRun(start: startDate, observation: recorder.observation)
        }
        throw OptionsError("could not prepare the firing data set ahead of its instants")
    }

    static func latencyRows(_ label: String, _ measured: FiringObservation, _ floor: FiringObservation,
                            goal: Double?) -> [ResultRow] {
        let engine = LatencySummary(measured.lateness)
        let bare = LatencySummary(floor.lateness)
        func row(_ name: String, _ value: Double, _ reference: Double, goal: Double? = nil) -> ResultRow {
            ResultRow(benchmark: "\(label): lateness \(name)", measured: Format.milliseconds(value),
                      reference: "\(Format.milliseconds(reference)) bare Task.sleep timer",
                      ratio: value > 0 && reference > 0 ? value / reference : nil,
                      goal: goal.map { "≤ \(Format.milliseconds($0)) at 10k/s" } ?? "—",
                      met: goal.map { value <= $0 })
        }
        return [
            row("p50", engine.p50, bare.p50),
            row("p99", engine.p99, bare.p99, goal: goal),
            row("max", engine.max, bare.max),
        ]
    }

    /// The engine claims everything due within its batch window (2 ms) together and holds what
    /// it claimed early until its instant; this row checks that none is handed over before it.
    static func earlyRow(_ label: String, _ measured: FiringObservation, _ floor: FiringObservation) -> ResultRow {
        func share(_ observation: FiringObservation) -> (percent: Double, most: Double) {
            let early = observation.lateness.filter { $0 < 0 }
            return (100 * Double(early.count) / Double(max(1, observation.lateness.count)), max(0, -(early.min() ?? 0)))
        }
        let engine = share(measured), bare = share(floor)
        return ResultRow(benchmark: "\(label): handed over before the instant (batch window)",
                         measured: String(format: "%.1f%%, ≤ %.3f ms early", engine.percent, engine.most * 1000),
                         reference: String(format: "%.1f%% bare Task.sleep timer", bare.percent),
                         ratio: nil, goal: "none (never early)", met: engine.percent == 0)
    }
}
