import Foundation
import HeraldAPI
import HeraldComposition
import HeraldCore
import HeraldDelivery
import HeraldScheduler
import HeraldStorage
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// Firing lateness with real delivery under write load (issue 23's steady row): a real
/// `HeraldServer` in this process, on SQLite, listening on 127.0.0.1, fires `rate` occurrences a
/// second for `seconds`, half to devices with a token (pushed through its gateway to nghttpd, a
/// peer cheaper than Herald) and half to devices without one (held in their inbox); then all to
/// the inbox. Meanwhile 1,000 schedules a second arrive through its HTTP API. Lateness is when
/// delivery completed (the inbox write committed, or nghttpd answered the push) minus the
/// occurrence's instant; the reference is a bare timer.
enum DeliveryLoadBenchmark {
    static let schedulesPerSecond = 1_000
    /// Concurrent keep-alive HTTP/1.1 clients making the schedules.
    static let clients = 16
    /// The goals are for 60 s at 10k/s; shorter or slower runs are not judged.
    static let goalSeconds = 60

    /// How the occurrences are delivered: half pushed and half held, or all held (the store's
    /// share alone).
    enum Mix: CaseIterable {
        case halfPushHalfInbox
        case inboxOnly

        var label: String {
            switch self {
            case .halfPushHalfInbox: return "half push to nghttpd, half inbox"
            case .inboxOnly: return "all to the inbox"
            }
        }

        /// Issue 23: p99 ≤ 20 ms with pushes to nghttpd, ≤ 5 ms with the inbox alone.
        var goalP99: Double { self == .halfPushHalfInbox ? 0.020 : 0.005 }

        func hasToken(_ deviceIndex: Int) -> Bool { self == .halfPushHalfInbox && deviceIndex % 2 == 0 }
    }

    static func token(_ deviceIndex: Int) -> String { String(format: "%064x", 0xd000 + deviceIndex) }

    static func run(_ options: Options) async throws -> [ResultRow] {
        guard ChildProcess.hasTool("nghttpd") else {
            throw OptionsError("nghttpd is missing (Debian: apt-get install nghttp2-server)")
        }
        let count = options.rate * options.seconds
        let offsets = (0..<count).map { Int64($0) * 1000 / Int64(options.rate) }
        let certificates = URL(fileURLWithPath: options.certificates).standardizedFileURL.path
        // nghttpd answers a POST to a file it serves with 200 and the (empty) file; every pushed
        // device's token gets one.
        let pushed = (0..<FiringBenchmark.devices(for: count)).filter(Mix.halfPushHalfInbox.hasToken).map(token)
        let nghttpd = try NghttpdProcess(certificates: certificates, scratch: options.scratch, tokens: PushFixture.tokens + pushed)
        defer { nghttpd.stop() }
        progress("delivery load: nghttpd on 127.0.0.1:\(nghttpd.port); timer floor, \(Format.grouped(options.rate))/s for \(options.seconds) s")
        let floor = await TimerFloor.run(start: FiringBenchmark.nextWholeSecond(after: 0.5), offsets: offsets)
        let judged = options.rate >= FiringBenchmark.goalRate && options.seconds >= goalSeconds
        var rows: [ResultRow] = []
        for mix in Mix.allCases {
            let recorder = LatenessRecorder(expected: count)
            progress("delivery load: \(mix.label), \(Format.grouped(options.rate))/s, \(schedulesPerSecond) schedules/s via HTTP")
            let result = try await measure(mix: mix, offsets: offsets, recorder: recorder, nghttpd: nghttpd,
                                           certificates: certificates, options: options)
            let label = "real delivery (\(mix.label)) at \(Format.count(options.rate))/s for \(options.seconds) s, "
                + "\(Format.count(schedulesPerSecond)) schedules/s via HTTP alongside"
            FiringBenchmark.reportBySecond(recorder.observation, perSecond: options.rate)
            progress("delivery load: outcomes \(result.outcomes); schedules \(result.schedules.stored) stored, "
                     + "\(result.schedules.refused) refused or failed, POST p50/p99/max "
                     + String(format: "%.1f/%.1f/%.1f ms", result.schedules.latency.p50 * 1000, result.schedules.latency.p99 * 1000,
                              result.schedules.latency.max * 1000))
            rows += FiringBenchmark.latencyRows(label, recorder.observation, floor, goal: mix.goalP99).map { row in
                var row = row
                if !judged { row.met = "n/a" }
                return row
            }
            rows.append(ResultRow(benchmark: "\(label): deliveries; CPU from the first instant to the last delivery",
                                  measured: "\(result.outcomes); \(result.cpu)",
                                  reference: "\(Format.grouped(count)) fired", ratio: nil))
            let asked = schedulesPerSecond * options.seconds
            let stored = result.schedules.stored
            rows.append(ResultRow(benchmark: "\(label): schedules stored meanwhile (POST …/notifications)",
                                  measured: "\(Format.grouped(stored)) in \(options.seconds) s (\(result.schedules.refused) refused or failed; "
                                      + "POST p50 \(Format.milliseconds(result.schedules.latency.p50)), p99 \(Format.milliseconds(result.schedules.latency.p99)))",
                                  reference: "\(Format.grouped(asked)) asked for", ratio: Double(stored) / Double(asked),
                                  goal: mix == .inboxOnly ? "every one" : "—",
                                  met: mix == .inboxOnly && judged ? stored == asked : nil))
        }
        return rows
    }

    struct Measurement {
        var outcomes: String
        var schedules: ScheduleLoad.Tally
        var cpu: String
    }

    /// CPU in use, as cores, between two readings: this process (server and HTTP clients),
    /// nghttpd, and the whole machine (everyone's processes, this shared machine's included).
    struct CPUWindow {
        private let wall = Stopwatch()
        private let own = ProcessCPU.seconds(pid: getpid()) ?? .nan
        private let peer: Double
        private let machine = ProcessCPU.machine()
        private let nghttpd: Int32

        init(nghttpd: Int32) {
            self.nghttpd = nghttpd
            peer = ProcessCPU.seconds(pid: nghttpd) ?? .nan
        }

        var summary: String {
            let seconds = wall.seconds
            let ownCores = ((ProcessCPU.seconds(pid: getpid()) ?? .nan) - own) / seconds
            let peerCores = ((ProcessCPU.seconds(pid: nghttpd) ?? .nan) - peer) / seconds
            var text = String(format: "CPU: herald-bench %.2f cores, nghttpd %.2f", ownCores, peerCores)
            if let before = machine, let after = ProcessCPU.machine(), after.total > before.total {
                let cpus = Double(ProcessInfo.processInfo.activeProcessorCount)
                text += String(format: ", machine %.0f%% busy of %.0f", 100 * (after.busy - before.busy) / (after.total - before.total), cpus)
            }
            if let load = ProcessCPU.loadAverage() { text += String(format: ", load average %.1f", load) }
            return text
        }
    }

    /// Prepares the devices and notifications in the server's store, serves, runs the schedule
    /// load until every occurrence was delivered, and stops the server.
    private static func measure(mix: Mix, offsets: [Int64], recorder: LatenessRecorder, nghttpd: NghttpdProcess,
                                certificates: String, options: Options) async throws -> Measurement {
        let directory = try ScratchDirectory(under: options.scratch, name: "delivery-load")
        defer { directory.remove() }
        var configuration = ServerConfiguration()
        configuration.listenPort = 0
        configuration.dataDirectory = directory.path
        var logger = Logger(label: "herald.bench.delivery-load")
        logger.logLevel = .error
        let timed = LateChannel()
        let server = try await HeraldServer(configuration: configuration, channel: timed, logger: logger)
        guard let store = server.store as? SQLiteStore else { throw OptionsError("expected the SQLite store") }
        // The router `HeraldServer` builds by default, timed.
        timed.set(TimedChannel(inner: DeviceRouter(streams: server.streams,
                                                   push: PushDeliveryChannel(gateway: server.gateway, store: store),
                                                   ledger: StoredTokenLedger(store: store), store: store),
                               recorder: recorder))
        // Firings the claim holds itself are delivered at its commit.
        await server.engine.observeHeldByClaim { fired in
            recorder.record(handedAt: Date(), scheduled: fired.lazy.map(\.occurrence.scheduledFor),
                            outcomes: Array(repeating: DeliveryOutcome(.inbox, .held), count: fired.count))
        }

        let count = offsets.count
        let devices = FiringBenchmark.devices(for: count)
        let app = App(id: PushFixture.bundleID, push: PushFixture.settings(port: nghttpd.port, certificates: certificates))
        _ = try await store.saveApp(app)
        let now = Date()
        for index in 0..<devices {
            // Devices without a token get theirs in the inbox.
            _ = try await store.saveDevice(Device(appID: app.id, id: Fixtures.deviceID(index), timeZone: "UTC",
                                                  token: mix.hasToken(index) ? token(index) : nil), now: now)
        }
        let loadDevices = max(1, schedulesPerSecond * options.seconds / 100)
        for index in 0..<loadDevices {
            _ = try await store.saveDevice(Device(appID: app.id, id: "load-\(index)", timeZone: "UTC"), now: now)
        }
        let start = FiringBenchmark.nextWholeSecond(after: 3.0 + Double(count) * 40e-6)
        try await Fixtures.insert(store, count: count, devices: devices) { start + offsets[$0] }
        // The server armed an empty store at start; these are what a restart would arm.
        await server.engine.arm(try await store.timerEntries())

        let (listening, announce) = AsyncStream.makeStream(of: Int.self)
        let application = server.makeApplication { port in announce.yield(port) }
        // Stopped gracefully, as SIGTERM stops `herald serve`, so shutdown logs no errors.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: application)], logger: logger))
        let serving = Task {
            defer { announce.finish() }
            try await group.run()
        }
        defer { serving.cancel() }
        var port = 0
        for await bound in listening {
            port = bound
            break
        }
        guard port > 0 else {
            let ended = await serving.result
            throw OptionsError("the server did not start: \(ended)")
        }
        // One push first, so the gateway's connection is open as in steady use.
        _ = await server.gateway.send([try PushFixture.push(token: 0)], app: app)
        let startDate = Date(millisecondsSince1970: start)
        guard startDate.timeIntervalSinceNow > 0.25 else {
            throw OptionsError("preparation ran past the first instant; raise the lead in DeliveryLoadBenchmark")
        }

        try await Task.sleep(for: .seconds(startDate.timeIntervalSinceNow))
        let cpu = CPUWindow(nghttpd: nghttpd.pid)
        let load = ScheduleLoad()
        let loading = Task {
            await load.run(port: port, devices: loadDevices, from: startDate, seconds: options.seconds, clients: clients)
        }
        let deadline = Date(millisecondsSince1970: start + (offsets.last ?? 0)).addingTimeInterval(60)
        while recorder.count < count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let cpuSummary = cpu.summary
        load.finish()
        let schedules = await loading.value
        _ = await server.engine.dispatcher.settle(timeout: .seconds(10))
        await group.triggerGracefulShutdown()
        _ = try? await serving.value
        guard recorder.count >= count else {
            throw OptionsError("delivered \(recorder.count) of \(count) occurrences before the deadline")
        }
        return Measurement(outcomes: recorder.outcomeSummary, schedules: schedules, cpu: cpuSummary)
    }
}

/// `schedulesPerSecond` far-future one-shots a second through `POST …/notifications`, from
/// `clients` keep-alive HTTP/1.1 connections, each on its own thread: their blocking sockets must
/// not hold the cooperative threads (two on this machine) the server's engine runs on.
final class ScheduleLoad: Sendable {
    struct Tally: Sendable {
        var stored = 0
        var refused = 0
        /// Each request's round trip, stored or not.
        var latency = LatencyHistogram()
    }

    private let stopped = Atomic<Bool>(false)
    private let tally = Mutex(Tally())

    /// Client `client` makes requests client, client + clients, …, each at its own instant from
    /// `from`, until `finish()`; returns what was stored (2xx) and what was not.
    func run(port: Int, devices: Int, from: Date, seconds: Int, clients: Int) async -> Tally {
        let total = DeliveryLoadBenchmark.schedulesPerSecond * seconds
        let body = #"{"fireDate":"2030-01-01T07:30","timeZone":"UTC","alert":{"body":"load"}}"#
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for client in 0..<clients {
                group.enter()
                Thread {
                    defer { group.leave() }
                    var connection = try? HTTPConnection(port: port)
                    for request in stride(from: client, to: total, by: clients) {
                        guard !self.stopped.load(ordering: .relaxed) else { return }
                        let wait = from.addingTimeInterval(Double(request) / Double(DeliveryLoadBenchmark.schedulesPerSecond))
                            .timeIntervalSinceNow
                        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                        if connection == nil { connection = try? HTTPConnection(port: port) }
                        let path = "/v1/apps/\(PushFixture.bundleID)/devices/load-\(request % devices)/notifications"
                        let sent = Stopwatch()
                        let status = (try? connection?.request("POST", path, body: body))?.status
                        let seconds = sent.seconds
                        if status == nil { connection = nil }  // closed: reconnect for the next one
                        self.tally.withLock { tally in
                            if let status, (200..<300).contains(status) { tally.stored += 1 } else { tally.refused += 1 }
                            tally.latency.record(seconds)
                        }
                    }
                }.start()
            }
            group.notify(queue: .global()) { done.resume() }
        }
        return tally.withLock { $0 }
    }

    func finish() { stopped.store(true, ordering: .relaxed) }
}

/// `HeraldServer` builds its engine before a router of ours can be given its gateway, so the
/// timed router is set once the server exists, before the engine runs.
final class LateChannel: DeliveryChannel {
    private let inner = Mutex<(any DeliveryChannel)?>(nil)

    func set(_ channel: any DeliveryChannel) { inner.withLock { $0 = channel } }

    func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        guard let channel = inner.withLock({ $0 }) else { preconditionFailure("LateChannel used before set") }
        return await channel.deliver(batch)
    }

    var inboxOnlyRule: InboxOnlyRule? { inner.withLock { $0 }?.inboxOnlyRule }
}

/// Wraps the router: records, when each delivery call returns, every occurrence's lateness and
/// how it ended.
struct TimedChannel: DeliveryChannel {
    let inner: any DeliveryChannel
    let recorder: LatenessRecorder

    func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        let outcomes = await inner.deliver(batch)
        recorder.record(handedAt: Date(), scheduled: batch.lazy.map(\.occurrence.scheduledFor), outcomes: outcomes)
        return outcomes
    }

    /// The router's, as the server would use it: what the claim holds never reaches `deliver`,
    /// and the engine's observer times it (see `measure`).
    var inboxOnlyRule: InboxOnlyRule? { inner.inboxOnlyRule }
}
