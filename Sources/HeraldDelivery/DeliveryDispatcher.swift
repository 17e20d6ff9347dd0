import Foundation
import HeraldCore
import HeraldStorage
import Logging
import Metrics
import ServiceLifecycle

/// Delivers what the timer fired, off the timer's path.
///
/// The engine commits firings to the fire log and hands them here without waiting. Each app
/// has its own queue with at most ``Configuration/perAppConcurrency`` deliveries in flight, so a
/// slow or failing app never delays another app's. Outcomes are stored in batches; a delivery
/// that failed in transit is retried with backoff; on shutdown the dispatcher stops taking new
/// work, lets what is in flight finish (up to ``Configuration/drain``) and stores every outcome.
/// Whatever it could not finish stays pending in the log and is handed over at the next start.
public actor DeliveryDispatcher: Service {
    public struct Configuration: Sendable {
        /// Delivery calls in flight at once for one app.
        public var perAppConcurrency: Int
        /// Most occurrences in one delivery call.
        public var chunkSize: Int
        /// Attempts for a delivery that failed in transit, the first included.
        public var maximumAttempts: Int
        /// Backoff before the second attempt; doubled each time, capped at a minute.
        public var retryBackoff: Duration
        /// How long a stop waits for deliveries in flight before storing what it has.
        public var drain: Duration

        public init(perAppConcurrency: Int = 4, chunkSize: Int = 500, maximumAttempts: Int = 5,
                    retryBackoff: Duration = .seconds(1), drain: Duration = .seconds(10)) {
            self.perAppConcurrency = max(1, perAppConcurrency)
            self.chunkSize = max(1, chunkSize)
            self.maximumAttempts = max(1, maximumAttempts)
            self.retryBackoff = retryBackoff
            self.drain = drain
        }
    }

    private struct Work {
        var fired: FiredOccurrence
        var attempt: Int
    }

    private let store: any DeliveryStore
    private let channel: any DeliveryChannel
    private let configuration: Configuration
    private let logger: Logger

    /// A first-in first-out queue that takes chunks off its head without copying the rest.
    private struct WorkQueue {
        private var items: [Work] = []
        private var head = 0

        var count: Int { items.count - head }
        var isEmpty: Bool { head == items.count }

        mutating func append(_ work: Work) { items.append(work) }

        mutating func take(_ limit: Int) -> [Work] {
            let end = min(items.count, head + limit)
            let chunk = Array(items[head..<end])
            head = end
            // Drop the taken prefix once it is most of the storage: amortized O(1) per item.
            if head >= 1024, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return chunk
        }
    }

    private var queues: [String: WorkQueue] = [:]
    private var inFlight: [String: Int] = [:]
    /// Occurrences in delivery calls that have not returned.
    private var occurrencesInFlight = 0
    private let inFlightGauge = Gauge(label: "herald_deliveries_in_flight")
    /// `herald_occurrences_fired_total{channel, outcome}` by channel and result kind, counted
    /// when the outcome is final (only then are both known).
    private var firedCounters: [[String]: Counter] = [:]
    private var running: [UUID: Task<Void, Never>] = [:]
    private var unsaved: [CompletedDelivery] = []
    private var flushing = false
    private var stopping = false
    private var recovered = false

    public init(store: any DeliveryStore, channel: any DeliveryChannel, configuration: Configuration = Configuration(),
                logger: Logger = Logger(label: "herald.delivery")) {
        self.store = store
        self.channel = channel
        self.configuration = configuration
        self.logger = logger
    }

    /// Occurrences queued plus delivery calls in flight: zero when the dispatcher is idle.
    public var backlog: Int { queues.values.reduce(0) { $0 + $1.count } + inFlight.values.reduce(0, +) }

    /// Takes firings to deliver and returns once they are queued, without waiting for delivery:
    /// one actor hop per batch, not per occurrence.
    public func enqueue(_ batch: [FiredOccurrence]) {
        accept(batch.map { Work(fired: $0, attempt: 1) })
    }

    /// Hands over firings the log holds without an outcome (a crash or a stop came first), and
    /// closes those whose device is gone. Idempotent; ``run()`` calls it too.
    public func recover() async throws {
        guard !recovered else { return }
        recovered = true
        let (fired, orphaned) = try await store.unfinishedFirings()
        await takeOver(fired: fired, orphaned: orphaned)
    }

    /// Delivers firings taken over from the fire log (after a restart, or from a node whose
    /// lease ran out), and closes those whose device is gone.
    public func takeOver(fired: [FiredOccurrence], orphaned: [Int64]) async {
        if !orphaned.isEmpty {
            unsaved += orphaned.map { DeliveryOutcome(.none, .deviceGone).completing($0) }
            countFired([DeliveryOutcome(.none, .deviceGone): orphaned.count])
            await flush()
        }
        if !fired.isEmpty {
            logger.info("handing over firings left without an outcome", metadata: ["count": "\(fired.count)"])
            accept(fired.map { Work(fired: $0, attempt: 1) })
        }
    }

    public func run() async throws {
        try await recover()
        // Work arrives through `enqueue`; this task only waits for the stop, then drains.
        try? await gracefulShutdown()
        await drainAndFlush()
    }

    /// Waits (at most `timeout`) until nothing is queued or in flight and every outcome is
    /// stored. Returns whether that happened. Tests and benchmarks call this.
    @discardableResult
    public func settle(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while backlog > 0 || !unsaved.isEmpty || flushing {
            guard ContinuousClock.now < deadline else { return false }
            if !unsaved.isEmpty, !flushing { await flush() }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    // MARK: Work

    private func accept(_ work: [Work]) {
        guard !stopping else { return }  // left pending in the log: the next start hands it over
        for item in work { queues[item.fired.device.appID, default: WorkQueue()].append(item) }
        for app in Set(work.map(\.fired.device.appID)) { startWork(app) }
    }

    private func startWork(_ app: String) {
        while !stopping, inFlight[app, default: 0] < configuration.perAppConcurrency,
              queues[app]?.isEmpty == false {
            let chunk = queues[app, default: WorkQueue()].take(configuration.chunkSize)
            if queues[app]?.isEmpty == true { queues[app] = nil }
            inFlight[app, default: 0] += 1
            occurrencesInFlight += chunk.count
            inFlightGauge.record(occurrencesInFlight)
            let id = UUID()
            running[id] = Task { [channel] in
                let outcomes = await channel.deliver(chunk.map(\.fired))
                self.finished(id: id, app: app, chunk: chunk, outcomes: outcomes)
            }
        }
    }

    private func finished(id: UUID, app: String, chunk: [Work], outcomes: [DeliveryOutcome]) {
        running[id] = nil
        inFlight[app, default: 1] -= 1
        if inFlight[app] == 0 { inFlight[app] = nil }
        occurrencesInFlight -= chunk.count
        inFlightGauge.record(occurrencesInFlight)
        var retries: [Work] = []
        var final: [DeliveryOutcome: Int] = [:]
        for (work, outcome) in zip(chunk, outcomes) {
            if outcome.failedInTransit, work.attempt < configuration.maximumAttempts, !stopping {
                retries.append(Work(fired: work.fired, attempt: work.attempt + 1))
                continue
            }
            final[DeliveryOutcome(outcome.route, outcome.result), default: 0] += 1
            if let logID = work.fired.logID { unsaved.append(outcome.completing(logID)) }
        }
        countFired(final)
        if !retries.isEmpty { scheduleRetry(retries) }
        startWork(app)
        if !flushing, !unsaved.isEmpty { Task { await self.flushSoon() } }
    }

    private func countFired(_ outcomes: [DeliveryOutcome: Int]) {
        for (outcome, count) in outcomes {
            let key = [outcome.channel, outcome.result.kind]
            let counter = firedCounters[key]
                ?? Counter(label: "herald_occurrences_fired_total", dimensions: [("channel", key[0]), ("outcome", key[1])])
            firedCounters[key] = counter
            counter.increment(by: count)
        }
    }

    /// Lets outcomes gather for a moment, then stores them in one transaction: at a steady rate
    /// that is one write every few milliseconds instead of one per delivery call, leaving the
    /// writer to the timer's claims.
    private func flushSoon() async {
        guard !flushing else { return }
        flushing = true
        try? await Task.sleep(for: Self.flushDelay)
        flushing = false
        await flush()
    }

    static let flushDelay: Duration = .milliseconds(5)

    private func scheduleRetry(_ work: [Work]) {
        let attempt = work.map(\.attempt).max() ?? 2
        let backoff = min(Duration.seconds(60), configuration.retryBackoff * (1 << min(attempt - 2, 6)))
        Task {
            try? await Task.sleep(for: backoff)
            self.accept(work)
        }
    }

    /// Stores every outcome gathered so far in one transaction, then any that arrived meanwhile.
    private func flush() async {
        guard !flushing else { return }
        flushing = true
        defer { flushing = false }
        while !unsaved.isEmpty {
            let batch = unsaved
            unsaved = []
            do {
                // In a task of its own: storage refuses work from a cancelled task, and a stop
                // must still store what was delivered.
                let store = self.store
                try await Task { try await store.completeDeliveries(batch) }.value
            } catch {
                unsaved = batch + unsaved
                logger.error("storing delivery outcomes failed; retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    // MARK: Stopping

    /// Lets deliveries in flight finish for at most ``Configuration/drain``, then stores every
    /// outcome. Queued work that never started stays pending in the log.
    private func drainAndFlush() async {
        stopping = true
        queues.removeAll()
        let deadline = ContinuousClock.now + configuration.drain
        // Cancelled rather than asked to stop: nothing to wait for, store what is there.
        while !running.isEmpty, !Task.isCancelled, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        await Task { await self.flushAll() }.value
    }

    private func flushAll() async {
        while flushing { try? await Task.sleep(for: .milliseconds(1)) }
        await flush()
    }
}

extension DeliveryOutcome {
    /// A push that did not reach APNs or got no answer (a transport failure, a timeout, a 5xx
    /// after the gateway's own retries): worth another attempt later. APNs' refusals are final.
    public var failedInTransit: Bool {
        guard route == .push else { return false }
        if case .failed = result { return true }
        return (apnsStatus ?? 0) >= 500
    }
}
