import Foundation
import HeraldCoalescer
import HeraldCore
import HeraldDelivery
import HeraldPush
import HeraldSandbox
import HeraldScheduler
import HeraldStorage
import Logging

/// The real delivery path in one process, as a server wires it: a SQLite store, the engine and
/// its dispatcher, the device router (live streams, the push channel, the stored token ledger,
/// inboxes) and the push gateway, pushing into an in-process sandbox. `channel` wraps the
/// router, for a benchmark that times what it delivers.
struct DeliveryRig {
    let store: SQLiteStore
    let sandbox: SandboxGateway
    let gateway: PushGateway
    let engine: SchedulerEngine
    let app: App
    let logger: Logger

    /// Runs `body` with a rig in a fresh directory under `scratch`, and tears it down after.
    static func with<T>(label: String, options: Options, wrap: (DeviceRouter) -> any DeliveryChannel = { $0 },
                        _ body: (DeliveryRig) async throws -> T) async throws -> T {
        var logger = Logger(label: "herald.bench.\(label)")
        logger.logLevel = .error
        let directory = options.scratch + "/herald-\(label)-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(directory: directory)
        let sandbox = SandboxGateway(
            configuration: SandboxConfiguration(host: "127.0.0.1", port: 0, adminHost: "127.0.0.1", adminPort: 0,
                                                certificatesDirectory: options.certificates),
            logger: logger)
        try await sandbox.start()
        let gateway = PushGateway(ledger: StoredTokenLedger(store: store), logger: logger)
        do {
            let app = App(id: PushFixture.bundleID, push: PushFixture.settings(port: sandbox.port, certificates: options.certificates))
            _ = try await store.saveApp(app)
            let router = DeviceRouter(streams: LiveStreams(), push: PushDeliveryChannel(gateway: gateway, store: store),
                                      ledger: StoredTokenLedger(store: store), store: store)
            let engine = SchedulerEngine(store: store, channel: wrap(router), logger: logger)
            let rig = DeliveryRig(store: store, sandbox: sandbox, gateway: gateway, engine: engine, app: app, logger: logger)
            let result = try await body(rig)
            await gateway.shutdown()
            await sandbox.shutdown()
            return result
        } catch {
            await gateway.shutdown()
            await sandbox.shutdown()
            throw error
        }
    }

    /// A one-shot notification for `deviceID`, due at `at`.
    func oneShot(_ id: String, deviceID: String, at: Date, body: String = "Your alarm") -> LocalNotification {
        LocalNotification(appID: app.id, deviceID: deviceID, id: id, fireDate: .instant(at), timeZone: .absolute,
                          repeatRule: nil, content: NotificationContent(alert: .init(body: body)), nextIndex: 0,
                          nextFireDate: at)
    }
}
