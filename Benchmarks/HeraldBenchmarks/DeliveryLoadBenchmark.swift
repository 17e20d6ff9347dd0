import Foundation
import HeraldCore
import HeraldDelivery
import HeraldScheduler
import HeraldStorage

/// Firing lateness with real delivery under write load: `rate` occurrences a second for
/// `seconds`, half to devices with a token (pushed through the gateway to the sandbox) and half
/// to devices without one (held in their inbox), then all to the inbox, while new schedules arrive at 1,000 a second
/// through the store's schedule call and the engine's `arm`, as the API makes them (without the
/// HTTP layer). Lateness is when delivery completed (the inbox write committed, or the sandbox
/// answered the push) minus the occurrence's instant; the reference is a bare timer.
enum DeliveryLoadBenchmark {
    static let goalP99 = 0.005
    static let schedulesPerSecond = 1_000

    /// How the occurrences are delivered: half pushed and half held, or all held (the store's
    /// share alone, without the sandbox peer taking CPU from the same two cores).
    enum Mix: CaseIterable {
        case halfPushHalfInbox
        case inboxOnly

        var label: String {
            switch self {
            case .halfPushHalfInbox: return "half push to the sandbox, half inbox"
            case .inboxOnly: return "all to the inbox"
            }
        }

        func hasToken(_ deviceIndex: Int) -> Bool { self == .halfPushHalfInbox && deviceIndex % 2 == 0 }
    }

    static func run(_ options: Options) async throws -> [ResultRow] {
        let count = options.rate * options.seconds
        let offsets = (0..<count).map { Int64($0) * 1000 / Int64(options.rate) }
        progress("delivery load: timer floor, \(Format.grouped(options.rate))/s for \(options.seconds) s")
        let floor = await TimerFloor.run(start: FiringBenchmark.nextWholeSecond(after: 0.5), offsets: offsets)
        var rows: [ResultRow] = []
        for mix in Mix.allCases {
            let recorder = LatenessRecorder(expected: count)
            progress("delivery load: \(mix.label), \(Format.grouped(options.rate))/s, \(schedulesPerSecond) schedules/s")
            let scheduled = try await DeliveryRig.with(label: "delivery-load", options: options,
                                                       wrap: { TimedChannel(inner: $0, recorder: recorder) }) { rig in
                try await measure(rig, mix: mix, offsets: offsets, recorder: recorder, seconds: options.seconds)
            }
            let label = "real delivery (\(mix.label)) at \(Format.count(options.rate))/s for \(options.seconds) s, "
                + "\(Format.count(schedulesPerSecond)) schedules/s alongside"
            FiringBenchmark.reportBySecond(recorder.observation, perSecond: options.rate)
            rows += FiringBenchmark.latencyRows(label, recorder.observation, floor,
                                                goal: options.rate >= FiringBenchmark.goalRate ? goalP99 : nil)
            rows.append(ResultRow(benchmark: "\(label): schedules stored meanwhile",
                                  measured: "\(Format.grouped(scheduled)) in \(options.seconds) s",
                                  reference: "\(Format.grouped(schedulesPerSecond * options.seconds)) asked for", ratio: nil))
        }
        return rows
    }

    /// Prepares the devices and notifications, runs the engine and the schedule load until
    /// every occurrence was delivered, and returns how many schedules were stored.
    private static func measure(_ rig: DeliveryRig, mix: Mix, offsets: [Int64], recorder: LatenessRecorder,
                                seconds: Int) async throws -> Int {
        let count = offsets.count
        let devices = FiringBenchmark.devices(for: count)
        let now = Date()
        for index in 0..<devices {
            // Devices without a token get theirs in the inbox.
            let token = mix.hasToken(index) ? String(format: "%064x", 0xd000 + index) : nil
            _ = try await rig.store.saveDevice(Device(appID: rig.app.id, id: Fixtures.deviceID(index), timeZone: "UTC",
                                                      token: token), now: now)
        }
        let loadDevices = max(1, schedulesPerSecond * seconds / 100)
        for index in 0..<loadDevices {
            _ = try await rig.store.saveDevice(Device(appID: rig.app.id, id: "load-\(index)", timeZone: "UTC"), now: now)
        }
        let start = FiringBenchmark.nextWholeSecond(after: 2.0 + Double(count) * 40e-6)
        try await Fixtures.insert(rig.store, count: count, devices: devices) { start + offsets[$0] }
        // One push first, so the connection is open as in steady use.
        _ = await rig.gateway.send([try PushFixture.push(token: 0)], app: rig.app)

        let engine = rig.engine
        try await engine.load()
        let running = Task { try await engine.run() }
        defer { running.cancel() }
        let load = Task { await scheduleLoad(rig, devices: loadDevices, from: Date(millisecondsSince1970: start),
                                                 seconds: seconds) }
        let deadline = Date(millisecondsSince1970: start + (offsets.last ?? 0)).addingTimeInterval(60)
        while recorder.count < count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        load.cancel()
        let scheduled = await load.value
        _ = await engine.dispatcher.settle(timeout: .seconds(10))
        guard recorder.count >= count else {
            throw OptionsError("delivered \(recorder.count) of \(count) occurrences before the deadline")
        }
        return scheduled
    }

    /// `schedulesPerSecond` far-future one-shots a second, from `from` for `seconds`, each stored
    /// and armed as the API does, from `clients` concurrent callers as HTTP clients would make
    /// them. Returns how many were stored.
    private static func scheduleLoad(_ rig: DeliveryRig, devices: Int, from: Date, seconds: Int,
                                     clients: Int = 16) async -> Int {
        let total = schedulesPerSecond * seconds
        let due = from.addingTimeInterval(86_400)
        return await withTaskGroup(of: Int.self) { group in
            for client in 0..<clients {
                group.addTask {
                    // Caller `client` makes requests client, client + clients, ..., each at its
                    // own instant; stopped by cancellation (the store then refuses), it counts
                    // what it stored.
                    var stored = 0
                    for request in stride(from: client, to: total, by: clients) {
                        let at = from.addingTimeInterval(Double(request) / Double(schedulesPerSecond))
                        do {
                            if at > Date() { try await Task.sleep(for: .seconds(at.timeIntervalSinceNow)) }
                            let notification = rig.oneShot("load-\(request)", deviceID: "load-\(request % devices)", at: due)
                            if let entry = try await rig.store.schedule(notification, now: Date()).armed {
                                await rig.engine.arm([entry])
                            }
                            stored += 1
                        } catch {
                            break
                        }
                    }
                    return stored
                }
            }
            return await group.reduce(0, +)
        }
    }
}

/// Wraps the router: records, when each delivery call returns, every occurrence's lateness.
struct TimedChannel: DeliveryChannel {
    let inner: any DeliveryChannel
    let recorder: LatenessRecorder

    func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        let outcomes = await inner.deliver(batch)
        recorder.record(handedAt: Date(), scheduled: batch.lazy.map(\.occurrence.scheduledFor))
        return outcomes
    }
}
