import Foundation
import HeraldAPI
import HeraldCore
import HeraldCoalescer
import HeraldDelivery
import HeraldPostgres
import HeraldPush
import HeraldScheduler
import HeraldStorage
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// `herald serve` assembled, the composition root: storage, the scheduler engine and the HTTP API
/// in one service group.
///
/// The one place that knows which store it runs on: SQLite under the data directory, or with
/// `storage.url` a PostgreSQL database shared with other nodes, plus this node's coordinator.
public struct HeraldServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: any HeraldStore
    /// Leases, takeovers and word between nodes; nil on SQLite.
    public let coordinator: NodeCoordinator?
    /// Live messages other nodes relay to the streams held here; nil on SQLite.
    public let relay: LiveRelay?
    public let engine: SchedulerEngine
    public let gateway: PushGateway
    /// Devices connected to their live event stream.
    public let streams: LiveStreams
    /// Delivers feedback events to the configured receivers; nil when none are configured.
    public let feedback: FeedbackDispatcher?
    /// Deletes history older than the retention settings.
    public let pruner: RetentionPruner
    /// Each long-running loop's last success and failures: `/readyz` and the loop metrics.
    public let health: LoopHealth
    /// The API's metrics and the store gauges refreshed at each scrape.
    public let metrics = ServerMetrics()
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
        // Without keys anyone who can reach the port has full access: allow only this machine.
        if configuration.adminKeys.isEmpty, configuration.appKeys.isEmpty, !configuration.listensOnLoopbackOnly {
            throw ConfigurationError(key: "listen", message: "refusing to listen on \(configuration.listenHost) without API keys; configure auth.adminKeys (or auth.keysFile), or listen on 127.0.0.1")
        }
        var logger = logger
        if configuration.storageURL != nil {
            // One of several nodes: every log line and the metrics say which.
            logger[metadataKey: "node"] = "\(configuration.resolvedNodeID)"
            registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "herald", metricName: "node", unitName: "info",
                                                                helpText: "1 for this node; its label names it"),
                               labels: [("node", configuration.resolvedNodeID)]).set(Int64(1))
        }
        self.configuration = configuration
        self.clock = clock
        self.registry = registry
        self.logger = logger
        let store: any HeraldStore
        var nodeStore: (any NodeStore)?
        var directory: (any StreamDirectory)?
        if let url = configuration.storageURL {
            let location = try PostgresLocation(url: url, passwordFile: configuration.storagePasswordFile,
                                                environment: ProcessInfo.processInfo.environment)
            let shared = try await PostgresStore.open(location, nodeID: configuration.resolvedNodeID,
                                                      poolSize: configuration.storagePoolSize,
                                                      leaseMilliseconds: Int64(configuration.nodeLeaseMilliseconds),
                                                      callTimeout: .milliseconds(configuration.storageCallTimeoutMilliseconds),
                                                      logger: logger)
            logger.info("storage: PostgreSQL", metadata: ["database": "\(location.redacted)",
                                                          "node": "\(shared.nodeID)"])
            store = shared
            nodeStore = shared
            directory = shared
        } else {
            store = try SQLiteStore(directory: configuration.dataDirectory, synchronous: configuration.synchronous)
        }
        self.store = store
        gateway = PushGateway(
            ledger: StoredTokenLedger(store: store),
            configuration: .init(timeout: .milliseconds(configuration.pushTimeoutMilliseconds),
                                 connectionsPerApp: configuration.pushConnectionsPerApp,
                                 credentialPolicy: PushCredentialPolicy(
                                     credentialsDirectory: configuration.pushCredentialsDirectory,
                                     allowedEnvironments: configuration.pushAllowedEnvironments)),
            logger: logger)
        let streams = LiveStreams(directory: directory, logger: logger)
        self.streams = streams
        let health = LoopHealth()
        self.health = health
        relay = directory.map { LiveRelay(directory: $0, streams: streams, health: health, logger: logger) }
        let pushChannel = PushDeliveryChannel(gateway: gateway, store: store,
                                              reportsSuccess: configuration.feedbackEvents.contains(.deliverySucceeded))
        let channel = channel ?? DeviceRouter(streams: streams, push: pushChannel,
                                              ledger: StoredTokenLedger(store: store), store: store)
        if configuration.feedbackURLs.isEmpty {
            feedback = nil
        } else {
            guard let secret = configuration.feedbackSecret, !secret.isEmpty else {
                throw ConfigurationError(key: "feedback.secret", message: "feedback.urls needs a signing secret (feedback.secret or feedback.secretFile)")
            }
            feedback = FeedbackDispatcher(
                store: store,
                configuration: .init(receivers: configuration.feedbackURLs.map { ($0, configuration.feedbackEvents) },
                                     secret: secret, maximumAttempts: configuration.feedbackMaxAttempts,
                                     outboxLimit: configuration.feedbackOutboxLimit),
                health: health, logger: logger)
        }
        if let hooksFile = configuration.hooksFile {
            try await APIRouter.loadHooks(from: hooksFile, into: store)
        }
        pruner = RetentionPruner(
            store: store,
            policy: RetentionPolicy(deliveries: Double(configuration.retentionDeliveriesDays) * 86_400,
                                    feedback: Double(configuration.retentionFeedbackDays) * 86_400,
                                    idempotency: APIRouter.idempotencyRetention),
            clock: clock, health: health, logger: logger)
        let dispatcher = DeliveryDispatcher(
            store: store, channel: channel,
            configuration: .init(drain: .milliseconds(configuration.shutdownDrainMilliseconds)), health: health, logger: logger)
        let engine = SchedulerEngine(
            store: store, channel: channel, dispatcher: dispatcher, clock: clock,
            configuration: .init(batchWindow: Double(configuration.batchWindowMilliseconds) / 1000,
                                 lateAfter: Double(configuration.lateAfterMilliseconds) / 1000),
            health: health, logger: logger)
        self.engine = engine
        let sweep = Duration.milliseconds(configuration.nodeSweepMilliseconds)
        coordinator = nodeStore.map { NodeCoordinator(store: $0, engine: engine, sweep: sweep, logger: logger) }
        try await engine.load()
    }

    /// The router with every route, for the application and for in-process tests.
    public func makeRouter() -> Router<HeraldRequestContext> {
        APIRouter.make(APIComponents(settings: configuration.apiSettings, store: store, engine: engine, gateway: gateway,
                                     streams: streams, feedback: feedback, health: health, metrics: metrics,
                                     registry: registry, clock: clock, logger: logger))
    }

    /// The HTTP application with the scheduler engine as one of its services.
    ///
    /// - Parameter onListening: called with the bound port once the server accepts connections.
    public func makeApplication(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.listenHost, port: configuration.listenPort),
                                 serverName: "herald"),
            // Stopped in reverse order: the HTTP server first, then the timer, then the dispatcher,
            // which finishes what is in flight and stores every outcome, and last the coordinator,
            // which renews this node's leases until then.
            services: (coordinator.map { [$0 as any Service] } ?? []) + (relay.map { [$0 as any Service] } ?? [])
                + [engine.dispatcher as any Service, engine, pruner] + (feedback.map { [$0] } ?? []),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Runs the server until SIGTERM or SIGINT, then stops within a bound: live streams end
    /// first (with a retry hint), the HTTP server stops accepting, the dispatcher drains for at
    /// most `shutdown.drainMs`, and whatever still runs a few seconds after that is cancelled.
    ///
    /// - Parameter onListening: called with the bound port once the server accepts connections.
    /// - Throws: what a service threw, such as the listening address being in use.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let drain = Duration.milliseconds(configuration.shutdownDrainMilliseconds)
        var group = ServiceGroupConfiguration(
            // Stopped in reverse order: the streams end before the server waits for its connections.
            services: [.init(service: makeApplication(onListening: onListening)), .init(service: StreamDrain(streams: streams))],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        group.maximumGracefulShutdownDuration = drain + Self.shutdownMargin
        group.maximumCancellationDuration = .seconds(1)
        try await ServiceGroup(configuration: group).run()
    }

    /// What a stop may take beyond the drain before the rest is cancelled.
    public static let shutdownMargin: Duration = .seconds(3)
}
