import Foundation
import HeraldCoalescer
import HeraldCore
import HeraldDirectory
import HeraldHooks
import HeraldDelivery
import HeraldPush
import HeraldScheduler
import HeraldStorage
import Hummingbird
import Logging
import Prometheus
import Yams

/// What the API's routes and middleware are told by the server's configuration.
public struct APISettings: Sendable {
    public var adminKeys: [String] = []
    public var appKeys: [(app: String, key: String)] = []
    public var metricsKeys: [String] = []
    public var metricsArePublic = false
    public var ratePerSecond: Double = 50
    public var rateBurst = 100
    public var hookRatePerSecond: Double = 50
    public var hookRateBurst = 100
    public var hookToleranceSeconds = 300
    public var hookMaxTokensPerRequest = 1000
    public var requestTimeoutMilliseconds = 30_000
    public var maxBodyBytes = 1_048_576
    public var maxPushBatch = 1000
    public var wakePushesPerHour = 3
    public var heartbeatMilliseconds = 15_000

    public init() {}
}

/// The engines and stores the routes call, as a composition root assembled them.
public struct APIComponents: Sendable {
    public var settings: APISettings
    public var store: any HeraldStore
    public var engine: SchedulerEngine
    public var gateway: PushGateway
    public var streams: LiveStreams
    /// nil when no feedback receivers are configured.
    public var feedback: FeedbackDispatcher?
    public var health: LoopHealth
    public var metrics: ServerMetrics
    public var registry: PrometheusCollectorRegistry
    public var clock: any SchedulerClock
    public var logger: Logger

    public init(settings: APISettings, store: any HeraldStore, engine: SchedulerEngine, gateway: PushGateway,
                streams: LiveStreams, feedback: FeedbackDispatcher?, health: LoopHealth, metrics: ServerMetrics,
                registry: PrometheusCollectorRegistry, clock: any SchedulerClock, logger: Logger) {
        self.settings = settings
        self.store = store
        self.engine = engine
        self.gateway = gateway
        self.streams = streams
        self.feedback = feedback
        self.health = health
        self.metrics = metrics
        self.registry = registry
        self.clock = clock
        self.logger = logger
    }
}

/// The HTTP API: every route and its middleware, over the components it is given.
public enum APIRouter {
    /// How long an idempotency key (a hook's, or a request's `Idempotency-Key`) is remembered.
    public static let idempotencyRetention = HookRoutes.idempotencyRetention

    /// The router with every route, for the application and for in-process tests.
    public static func make(_ components: APIComponents) -> Router<HeraldRequestContext> {
        let (settings, store, engine, gateway) = (components.settings, components.store, components.engine,
                                                  components.gateway)
        let (clock, metrics, feedback) = (components.clock, components.metrics, components.feedback)
        // No HEAD generated from GET: Hummingbird would run the GET handler, and the event
        // stream's handler connects the device and hands its backlog over before any body.
        let router = Router(context: HeraldRequestContext.self)
        let routes = RouteTable()
        router.add(middleware: HTTPMetricsMiddleware())
        let fullness = StorageFullness()
        router.add(middleware: ErrorMiddleware(routes: routes, fullness: fullness))
        router.add(middleware: AccessMiddleware(
            keys: APIKeys(adminKeys: settings.adminKeys, appKeys: settings.appKeys, metricsKeys: settings.metricsKeys),
            metricsArePublic: settings.metricsArePublic,
            metrics: metrics,
            limiter: RateLimiter(ratePerSecond: settings.ratePerSecond, burst: settings.rateBurst),
            hookLimiter: RateLimiter(ratePerSecond: settings.hookRatePerSecond, burst: settings.hookRateBurst),
            deadlines: RequestDeadlines(timeout: .milliseconds(settings.requestTimeoutMilliseconds))))
        let services = APIServices(directory: Directory(store: store, engine: engine, clock: clock),
                                   scheduling: Scheduling(store: store, arm: { [engine] in await engine.arm($0) }),
                                   pending: PendingNotifications(store: store), engine: engine,
                                   clock: clock, body: JSONBody(maximumBytes: settings.maxBodyBytes))
        let gauges = CachedRead { [store] in try await store.storeGauges() }
        let backlog = CachedRead { [store] in try await store.eventBacklogByKind() }
        let logger = components.logger
        HealthRoutes(registry: components.registry,
                     storeProblem: { [store] in await store.problem(within: HealthRoutes.probeTimeout) },
                     health: components.health, fullness: fullness,
                     refresh: { [gateway, metrics, logger] in
                         await metrics.refresh(gauges: gauges, backlog: backlog, gateway: gateway, logger: logger)
                     }).register(on: router)
        AppRoutes(services: services, gateway: gateway).register(on: router)
        let lease = max(60, 2 * Double(settings.requestTimeoutMilliseconds) / 1000)
        let idempotency = IdempotentRequests(
            keys: IdempotencyKeys(store: store, retention: IdempotentRequests.retention, lease: lease),
            clock: clock, body: services.body)
        PushRoutes(services: services, gateway: gateway, maximumBatch: settings.maxPushBatch, idempotency: idempotency)
            .register(on: router)
        let intake = HookIntake(directory: services.directory,
                                keys: IdempotencyKeys(store: store, retention: HookRoutes.idempotencyRetention, lease: lease),
                                gateway: gateway, maxTargets: settings.hookMaxTokensPerRequest)
        HookRoutes(services: services, hooks: HookDefinitions(store: store), intake: intake,
                   defaultTolerance: settings.hookToleranceSeconds).register(on: router)
        let outbox = FeedbackOutbox(store: store, dispatcher: feedback)
        FeedbackRoutes(outbox: outbox).register(on: router)
        var backup: (@Sendable (String) async throws -> BackupReport)?
        if let copying = store as? any OnlineBackup {
            backup = { @Sendable destination in try await copying.backup(to: destination) }
        }
        BackupRoutes(services: services, backup: backup).register(on: router)
        let coalescer = Coalescer(store: store, streams: components.streams)
        StatusRoutes(reports: StatusReports(store: store, coalescer: coalescer, gauges: gauges, gateway: gateway,
                                            lateness: engine.lateness, clock: clock),
                     outbox: outbox).register(on: router)
        LifecycleRoutes(services: services, coalescer: coalescer,
                        wakePushes: WakePushes(coalescer: coalescer, gateway: gateway, perHour: settings.wakePushesPerHour),
                        metrics: metrics,
                        heartbeat: .milliseconds(settings.heartbeatMilliseconds), idempotency: idempotency)
            .register(on: router)
        DeviceRoutes(services: services).register(on: router)
        ActivityRoutes(services: services).register(on: router)
        ChannelRoutes(services: services, gateway: gateway).register(on: router)
        NotificationRoutes(services: services, idempotency: idempotency).register(on: router)
        routes.load(router.routes.map { ($0.path.description, $0.method.rawValue) })
        return router
    }

    /// Stores the hooks defined in a file (a YAML or JSON list of definitions), at start-up.
    ///
    /// - Throws: the file's read or decode error, or the first definition's validation error.
    public static func loadHooks(from path: String, into store: any HookStore & ListingStore) async throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let definitions = try YAMLDecoder().decode([WebhookDefinition].self, from: text)
        let hooks = HookDefinitions(store: store)
        for definition in definitions { _ = try await hooks.save(definition) }
    }
}
