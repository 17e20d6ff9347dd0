import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPush
import HeraldSandbox
import HeraldScheduler
import HeraldStorage
import Logging

/// Head-of-line blocking, measured: pushes due 1 s after a group whose APNs peer takes 3 s to
/// answer, through the real engine, dispatcher, device router and push gateway, into an
/// in-process sandbox. Lateness is when each push reached the sandbox minus its instant.
/// The reference is the same schedule with a peer that answers at once.
enum SlowPeerBenchmark {
    static let goalP99 = 0.100
    static let groupSize = 40

    static func run(_ options: Options) async throws -> [ResultRow] {
        progress("slow peer: reference run, peer answering at once")
        let reference = LatencySummary(try await lateness(peerLatency: 0, options: options))
        progress("slow peer: peer answering the first group in 3 s")
        let measured = LatencySummary(try await lateness(peerLatency: 3000, options: options))
        let label = "slow peer: \(groupSize) pushes due 1 s after \(groupSize) the peer answers in 3 s: lateness"
        return [
            ResultRow(benchmark: "\(label) p50 / max", measured: "\(Format.milliseconds(measured.p50)) / \(Format.milliseconds(measured.max))",
                      reference: "\(Format.milliseconds(reference.p50)) / \(Format.milliseconds(reference.max)) peer answering at once",
                      ratio: measured.p50 / reference.p50),
            ResultRow(benchmark: "\(label) p99", measured: Format.milliseconds(measured.p99),
                      reference: "\(Format.milliseconds(reference.p99)) peer answering at once", ratio: measured.p99 / reference.p99,
                      goal: "≤ 100 ms", met: measured.p99 <= goalP99),
        ]
    }

    /// Seconds between each second-group push's instant and its arrival at the sandbox.
    static func lateness(peerLatency: Int, options: Options) async throws -> [Double] {
        var logger = Logger(label: "herald.bench.slow-peer")
        logger.logLevel = .error
        let directory = options.scratch + "/herald-slow-peer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(directory: directory)
        let sandbox = SandboxGateway(
            configuration: SandboxConfiguration(host: "127.0.0.1", port: 0, adminHost: "127.0.0.1", adminPort: 0,
                                                certificatesDirectory: options.certificates),
            logger: logger)
        try await sandbox.start()
        let gateway = PushGateway(ledger: StoredTokenLedger(store: store), logger: logger)
        do {
            let samples = try await measure(store: store, gateway: gateway, sandbox: sandbox, options: options,
                                            peerLatency: peerLatency, logger: logger)
            await gateway.shutdown()
            await sandbox.shutdown()
            return samples
        } catch {
            await gateway.shutdown()
            await sandbox.shutdown()
            throw error
        }
    }

    private static func measure(store: SQLiteStore, gateway: PushGateway, sandbox: SandboxGateway, options: Options,
                                peerLatency: Int, logger: Logger) async throws -> [Double] {
        let app = App(id: PushFixture.bundleID, push: PushFixture.settings(port: sandbox.port, certificates: options.certificates))
        _ = try await store.saveApp(app)
        let tokens = (0..<(2 * groupSize)).map { String(format: "%064x", 0xbe00 + $0) }
        for (index, token) in tokens.enumerated() {
            _ = try await store.saveDevice(Device(appID: app.id, id: "d\(index)", timeZone: "UTC", token: token), now: Date())
        }
        let router = DeviceRouter(streams: LiveStreams(), push: PushDeliveryChannel(gateway: gateway, store: store),
                                  ledger: StoredTokenLedger(store: store), store: store)
        let engine = SchedulerEngine(store: store, channel: router, logger: logger)
        try await engine.load()
        let running = Task { try await engine.run() }
        defer { running.cancel() }

        // Open the connection and let the sandbox raise its stream limit, as in steady use.
        _ = await gateway.send([try PushFixture.push(token: 0)], app: app)
        sandbox.faults = SandboxFaults(latencyMilliseconds: peerLatency)
        let first = Date().addingTimeInterval(1.5)
        let second = first.addingTimeInterval(1)
        var armed: [TimerEntry] = []
        for (index, _) in tokens.enumerated() {
            let at = index < groupSize ? first : second
            let notification = LocalNotification(appID: app.id, deviceID: "d\(index)", id: "n\(index)", fireDate: .instant(at),
                                                 timeZone: .absolute, repeatRule: nil,
                                                 content: NotificationContent(alert: .init(body: "group \(index < groupSize ? 1 : 2)")),
                                                 nextIndex: 0, nextFireDate: at)
            if let entry = try await store.schedule(notification, now: Date()).armed { armed.append(entry) }
        }
        await engine.arm(armed)
        let deadline = second.addingTimeInterval(15)
        let late = Array(tokens[groupSize...])
        while Date() < deadline, late.contains(where: { sandbox.inbox(token: $0).isEmpty }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        return late.compactMap { sandbox.inbox(token: $0).first.map { $0.receivedAt.timeIntervalSince(second) } }
    }
}
