import HeraldCore
import HeraldPush
import HeraldStorage
import Logging
import Metrics
import Synchronization

/// The API's own Prometheus families, and the gauges read from the store at each scrape.
///
/// - `herald_http_rate_limited_total{scope}`: requests refused with 429 (`key` or `hook`)
/// - `herald_coalescer_events_total{disposition}`: reported events, `live` or `queued`
/// - `herald_wake_pushes_total{result}`: `sent`, or `throttled` by the hourly limit
/// - `herald_pending_notifications`, `herald_fire_log_backlog`,
///   `herald_coalescer_backlog{kind}` (system kinds by name, custom kinds as `custom`),
///   `herald_feedback_outbox_depth{state}` (`pending`, `parked`)
public final class ServerMetrics: Sendable {
    private let rateLimitedKey = Counter(label: "herald_http_rate_limited_total", dimensions: [("scope", "key")])
    private let rateLimitedHook = Counter(label: "herald_http_rate_limited_total", dimensions: [("scope", "hook")])
    private let eventsLive = Counter(label: "herald_coalescer_events_total", dimensions: [("disposition", "live")])
    private let eventsQueued = Counter(label: "herald_coalescer_events_total", dimensions: [("disposition", "queued")])
    private let wakeSent = Counter(label: "herald_wake_pushes_total", dimensions: [("result", "sent")])
    private let wakeThrottled = Counter(label: "herald_wake_pushes_total", dimensions: [("result", "throttled")])
    private let pending = Gauge(label: "herald_pending_notifications")
    private let fireLogBacklog = Gauge(label: "herald_fire_log_backlog")
    private let outboxPending = Gauge(label: "herald_feedback_outbox_depth", dimensions: [("state", "pending")])
    private let outboxParked = Gauge(label: "herald_feedback_outbox_depth", dimensions: [("state", "parked")])
    private let backlogByKind = Mutex<[String: Gauge]>([:])

    public init() {}

    /// What a 429 was counted against.
    enum RateLimitScope {
        case key, hook
    }

    func rateLimited(_ scope: RateLimitScope) {
        (scope == .hook ? rateLimitedHook : rateLimitedKey).increment()
    }

    func eventsReported(live: Int, queued: Int) {
        if live > 0 { eventsLive.increment(by: live) }
        if queued > 0 { eventsQueued.increment(by: queued) }
    }

    /// A wake push went out (`sent`), or the hourly limit held it back.
    func wakePush(sent: Bool) {
        (sent ? wakeSent : wakeThrottled).increment()
    }

    /// Reads the store's counts and the push engine's gauges; called before each scrape. A store
    /// that cannot be read leaves the store's gauges as they were: the rest still scrape.
    func refresh(gauges storeGauges: CachedRead<StoreGauges>, backlog: CachedRead<[String: Int]>, gateway: PushGateway,
                 logger: Logger) async {
        await gateway.refreshMetrics()
        let gauges: StoreGauges
        let backlogCounts: [String: Int]
        do {
            gauges = try await storeGauges.value
            backlogCounts = try await backlog.value
        } catch {
            logger.warning("metrics: cannot read the store's counts; its gauges keep their last values",
                           metadata: ["error": "\(error)"])
            return
        }
        pending.record(gauges.pendingNotifications)
        fireLogBacklog.record(gauges.fireLogBacklog)
        outboxPending.record(gauges.outboxPending)
        outboxParked.record(gauges.outboxParked)
        var byLabel: [String: Int] = [:]
        for (kind, count) in backlogCounts { byLabel[Self.kindLabel(kind), default: 0] += count }
        let kinds = backlogByKind.withLock { kinds in
            for label in byLabel.keys where kinds[label] == nil {
                kinds[label] = Gauge(label: "herald_coalescer_backlog", dimensions: [("kind", label)])
            }
            return kinds
        }
        // A kind seen before and now empty reads 0, not its last value.
        for (label, gauge) in kinds { gauge.record(byLabel[label] ?? 0) }
    }

    /// A bounded label: the system kinds by name, every app's custom kinds as one.
    static func kindLabel(_ kind: String) -> String {
        EventKind(rawValue: kind) == nil ? "custom" : kind
    }
}
