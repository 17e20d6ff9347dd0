import Foundation
import HeraldCore
import HeraldPush
import HeraldScheduler
import HeraldStorage
import Hummingbird
import Logging
import Prometheus

/// `herald serve` assembled: storage, the scheduler engine and the HTTP API in one service group.
public struct HeraldServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: SQLiteStore
    public let engine: SchedulerEngine
    public let gateway: PushGateway
    /// Devices connected to their live event stream.
    public let streams: LiveStreams
    private let clock: any SchedulerClock
    private let registry: PrometheusCollectorRegistry
    private let logger: Logger

    /// Opens the store under the data directory and arms every pending notification.
    ///
    /// - Parameter channel: where fired occurrences go; by default the device router (live
    ///   stream, else alert push, else the device's inbox).
    public init(configuration: ServerConfiguration, clock: any SchedulerClock = SystemClock(),
                channel: (any DeliveryChannel)? = nil,
                registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
                logger: Logger = Logger(label: "herald")) async throws {
        self.configuration = configuration
        self.clock = clock
        self.registry = registry
        self.logger = logger
        let store = try SQLiteStore(directory: configuration.dataDirectory, synchronous: configuration.synchronous)
        self.store = store
        gateway = PushGateway(
            ledger: StoredTokenLedger(store: store),
            configuration: .init(timeout: .milliseconds(configuration.pushTimeoutMilliseconds),
                                 connectionsPerApp: configuration.pushConnectionsPerApp),
            logger: logger)
        let streams = LiveStreams()
        self.streams = streams
        let channel = channel ?? DeviceRouter(streams: streams, push: PushDeliveryChannel(gateway: gateway, store: store),
                                              ledger: StoredTokenLedger(store: store), store: store)
        engine = SchedulerEngine(
            store: store, channel: channel, clock: clock,
            configuration: .init(batchWindow: Double(configuration.batchWindowMilliseconds) / 1000,
                                 lateAfter: Double(configuration.lateAfterMilliseconds) / 1000),
            logger: logger)
        try await engine.load()
    }

    /// The router with every route, for the application and for in-process tests.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: ErrorMiddleware())
        let services = APIServices(store: store, engine: engine, clock: clock,
                                   body: JSONBody(maximumBytes: configuration.maxBodyBytes))
        HealthRoutes(registry: registry).register(on: router)
        AppRoutes(services: services, gateway: gateway).register(on: router)
        PushRoutes(services: services, gateway: gateway, maximumBatch: configuration.maxPushBatch).register(on: router)
        LifecycleRoutes(services: services, store: store, streams: streams, gateway: gateway,
                        wakePushesPerHour: configuration.wakePushesPerHour,
                        heartbeat: .milliseconds(configuration.heartbeatMilliseconds)).register(on: router)
        DeviceRoutes(services: services).register(on: router)
        NotificationRoutes(services: services).register(on: router)
        return router
    }

    /// The HTTP application with the scheduler engine as one of its services.
    ///
    /// - Parameter onListening: called with the bound port once the server accepts connections.
    public func makeApplication(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.listenHost, port: configuration.listenPort),
                                 serverName: "herald"),
            services: [engine],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
