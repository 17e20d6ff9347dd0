import Foundation
import HeraldCore
import HeraldHTTP2
import Metrics
import Synchronization

/// The push engine's Prometheus families. Counters are looked up once per label set and kept;
/// a batch adds its outcomes per label set, not per push.
///
/// - `herald_pushes_total{app, push_type, outcome, reason}`
/// - `herald_push_duration_seconds{app}`: from the gateway taking a push to its outcome
/// - `herald_push_retries_total{app}`: attempts after the first
/// - `herald_apns_connects_total{app, result}`, `herald_apns_goaways_total{app}`
/// - `herald_apns_open_connections{app}`, `herald_provider_tokens_signed_total` (read at scrape)
final class PushMetrics: Sendable {
    private struct OutcomeKey: Hashable {
        var app: String, platform: Platform, type: String, result: PushOutcome.Result, reason: String
    }

    private let outcomes = Mutex<[OutcomeKey: Counter]>([:])
    private let perApp = Mutex<[[String]: (duration: Metrics.Timer, retries: Counter, goAways: Counter)]>([:])
    private let connects = Mutex<[[String]: Counter]>([:])
    private let openConnections = Mutex<[String: Gauge]>([:])
    private let signed = Counter(label: "herald_provider_tokens_signed_total")
    private let signedReported = Mutex(0)

    /// One batch's outcomes for `app`, which took `elapsed`.
    func record(_ results: [PushOutcome], types: [String], platform: Platform, app: String, elapsed: Duration) {
        var counts: [OutcomeKey: Int] = [:]
        var retries = 0
        for (outcome, type) in zip(results, types) {
            counts[OutcomeKey(app: app, platform: platform, type: type, result: outcome.result, reason: outcome.boundedReason),
                   default: 0] += 1
            retries += max(0, outcome.attempts - 1)
        }
        let counters = outcomes.withLock { outcomes in
            counts.map { key, count in
                let counter = outcomes[key] ?? Counter(label: "herald_pushes_total", dimensions: [
                    ("app", key.app), ("platform", key.platform.rawValue), ("push_type", key.type), ("outcome", key.result.rawValue), ("reason", key.reason),
                ])
                outcomes[key] = counter
                return (counter, count)
            }
        }
        for (counter, count) in counters { counter.increment(by: count) }
        let metrics = appMetrics(app, platform: platform)
        for _ in results { metrics.duration.recordNanoseconds(elapsed.clampedNanoseconds) }
        if retries > 0 { metrics.retries.increment(by: retries) }
    }

    /// A connection attempt of `app`'s pool and how it ended.
    func connected(app: String, succeeded: Bool) {
        let key = [app, succeeded ? "ok" : "failed"]
        connects.withLock { connects in
            let counter = connects[key] ?? Counter(label: "herald_apns_connects_total",
                                                   dimensions: [("app", app), ("result", key[1])])
            connects[key] = counter
            return counter
        }.increment()
    }

    /// A connection of `app` that the server sent GOAWAY on.
    func receivedGoAway(app: String) {
        appMetrics(app, platform: .ios).goAways.increment()
    }

    /// Gauges and totals read at scrape time.
    func refresh(openConnections counts: [String: Int], signedTokens: Int) {
        let gauges = openConnections.withLock { gauges in
            for app in counts.keys where gauges[app] == nil {
                gauges[app] = Gauge(label: "herald_apns_open_connections", dimensions: [("app", app)])
            }
            return gauges
        }
        for (app, gauge) in gauges { gauge.record(counts[app] ?? 0) }
        let delta = signedReported.withLock { reported in
            defer { reported = max(reported, signedTokens) }
            return signedTokens - reported
        }
        if delta > 0 { signed.increment(by: delta) }
    }

    private func appMetrics(_ app: String, platform: Platform) -> (duration: Metrics.Timer, retries: Counter, goAways: Counter) {
        perApp.withLock { perApp in
            if let metrics = perApp[[app, platform.rawValue]] { return metrics }
            let dimensions = [("app", app), ("platform", platform.rawValue)]
            let metrics = (duration: Metrics.Timer(label: "herald_push_duration_seconds", dimensions: dimensions,
                                                   preferredDisplayUnit: .seconds),
                           retries: Counter(label: "herald_push_retries_total", dimensions: dimensions),
                           goAways: Counter(label: "herald_apns_goaways_total", dimensions: [("app", app)]))
            perApp[[app, platform.rawValue]] = metrics
            return metrics
        }
    }
}
