import Foundation
import HeraldCore
import HeraldStorage
import Logging
import Metrics
import ServiceLifecycle

/// Delivers what the timer fired, off the timer's path.
///
/// The engine commits firings to the fire log and hands them here without waiting. Each app has
/// a queue per platform (APNs, FCM, Web Push) with at most ``Configuration/perAppConcurrency``
/// deliveries in flight, so a slow or failing app never delays another app's, and a service that
/// is down for an app never delays the app's other platforms. Outcomes are stored in batches. A fault (a
/// push that got no answer, a store call that failed) is never an outcome: the delivery is
/// retried with capped, jittered backoff for as long as the node runs, and each unit of work is
/// idempotent (the inbox keeps one item per firing, a push carries the occurrence as its collapse
/// id), so a retry after a lost reply is safe. On shutdown the dispatcher stops taking new work,
/// lets what is in flight finish (up to ``Configuration/drain``) and stores every final outcome;
/// whatever it could not finish stays pending in the log, for another node or the next start.
public actor DeliveryDispatcher: Service {
    public struct Configuration: Sendable {
        /// Delivery calls in flight at once for one app and platform.
        public var perAppConcurrency: Int
        /// Most occurrences in one delivery call.
        public var chunkSize: Int
        /// Backoff before the second attempt after a fault; doubled each time, capped at
        /// ``maximumBackoff``, each wait drawn between half and all of it.
        public var retryBackoff: Duration
        public var maximumBackoff: Duration
        /// How long a stop waits for deliveries in flight before storing what it has.
        public var drain: Duration

        public init(perAppConcurrency: Int = 4, chunkSize: Int = 500, retryBackoff: Duration = .seconds(1),
                    maximumBackoff: Duration = .seconds(30), drain: Duration = .seconds(10)) {
            self.perAppConcurrency = max(1, perAppConcurrency)
            self.chunkSize = max(1, chunkSize)
            self.retryBackoff = retryBackoff
            self.maximumBackoff = maximumBackoff
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
    private let health: LoopHealth

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

    /// One queue per app and platform: what one push service does cannot hold back another's.
    private struct Lane: Hashable {
        var app: String
        var platform: Platform

        init(_ fired: FiredOccurrence) {
            (app, platform) = (fired.device.appID, fired.device.platform)
        }
    }

    private var queues: [Lane: WorkQueue] = [:]
    /// Fire-log ids this dispatcher holds (queued, in flight, waiting to retry, or with an
    /// outcome not yet stored): a firing handed over again while held is not delivered twice.
    private var held: Set<Int64> = []
    /// Fire-log ids whose outcome was stored lately, with when: a take-over that read the row
    /// just before that commit must not deliver it again.
    private var recentlyStored: [Int64: ContinuousClock.Instant] = [:]
    private var lastPruned = ContinuousClock.now
    private var inFlight: [Lane: Int] = [:]
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
    /// Set at a stop: the instant after which outcomes the store keeps refusing are left unstored.
    private var giveUpAt: ContinuousClock.Instant?
    private var recovered = false

    public init(store: any DeliveryStore, channel: any DeliveryChannel, configuration: Configuration = Configuration(),
                health: LoopHealth = LoopHealth(), logger: Logger = Logger(label: "herald.delivery")) {
        self.store = store
        self.health = health
        self.channel = channel
        self.configuration = configuration
        self.logger = logger
    }

    /// Occurrences queued plus delivery calls in flight: zero when the dispatcher is idle.
    public var backlog: Int { queues.values.reduce(0) { $0 + $1.count } + inFlight.values.reduce(0, +) }

    /// Takes firings to deliver and returns once they are queued, without waiting for delivery:
    /// one actor hop per batch, not per occurrence.
    public func enqueue(_ batch: [FiredOccurrence]) {
        accept(fresh(batch))
    }

    /// Counts firings the claim held in their inboxes itself (see ``InboxOnlyRule``): their
    /// outcome is stored, and the metrics count them as if this dispatcher had held them.
    public func countHeldByClaim(_ count: Int) {
        countFired([DeliveryOutcome(.inbox, .held): count])
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
            // Not awaited: the heartbeat that called this must not wait on a failing store.
            Task { await self.flush() }
        }
        let work = fresh(fired)
        if !work.isEmpty {
            logger.info("handing over firings left without an outcome", metadata: ["count": "\(work.count)"])
            accept(work)
        }
    }

    /// The firings among `batch` this dispatcher does not hold already, as first attempts.
    private func fresh(_ batch: [FiredOccurrence]) -> [Work] {
        let now = ContinuousClock.now
        if now - lastPruned > .seconds(1) {
            recentlyStored = recentlyStored.filter { now - $0.value < Self.recentlyStoredMemory }
            lastPruned = now
        }
        return batch.compactMap { fired in
            if let logID = fired.logID {
                guard recentlyStored[logID] == nil, held.insert(logID).inserted else { return nil }
            }
            return Work(fired: fired, attempt: 1)
        }
    }

    /// How long a stored outcome's id is remembered: longer than any take-over read takes.
    static let recentlyStoredMemory: Duration = .seconds(120)

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
        guard !stopping else {
            // Left pending in the log: another node or the next start hands it over.
            for item in work { if let logID = item.fired.logID { held.remove(logID) } }
            return
        }
        for item in work { queues[Lane(item.fired), default: WorkQueue()].append(item) }
        for key in Set(work.map { Lane($0.fired) }) { startWork(key) }
    }

    private func startWork(_ lane: Lane) {
        while !stopping, inFlight[lane, default: 0] < configuration.perAppConcurrency,
              queues[lane]?.isEmpty == false {
            let chunk = queues[lane, default: WorkQueue()].take(configuration.chunkSize)
            if queues[lane]?.isEmpty == true { queues[lane] = nil }
            inFlight[lane, default: 0] += 1
            occurrencesInFlight += chunk.count
            inFlightGauge.record(occurrencesInFlight)
            let id = UUID()
            running[id] = Task { [channel] in
                let outcomes = await channel.deliver(chunk.map(\.fired))
                self.finished(id: id, lane: lane, chunk: chunk, outcomes: outcomes)
            }
        }
    }

    private func finished(id: UUID, lane: Lane, chunk: [Work], outcomes: [DeliveryOutcome]) {
        running[id] = nil
        inFlight[lane, default: 1] -= 1
        if inFlight[lane] == 0 { inFlight[lane] = nil }
        occurrencesInFlight -= chunk.count
        inFlightGauge.record(occurrencesInFlight)
        var retries: [Work] = []
        var final: [DeliveryOutcome: Int] = [:]
        for (work, outcome) in zip(chunk, outcomes) {
            if outcome.isFault {
                // Never stored as an outcome: tried again, or left pending for whoever runs next.
                if stopping {
                    if let logID = work.fired.logID { held.remove(logID) }
                } else {
                    retries.append(Work(fired: work.fired, attempt: work.attempt + 1))
                }
                continue
            }
            final[DeliveryOutcome(outcome.route, outcome.result), default: 0] += 1
            if let logID = work.fired.logID { unsaved.append(outcome.completing(logID)) }
        }
        countFired(final)
        if !retries.isEmpty { scheduleRetry(retries) }
        startWork(lane)
        if !flushing, !unsaved.isEmpty { Task { await self.flushSoon() } }
    }

    private func countFired(_ outcomes: [DeliveryOutcome: Int]) {
        for (outcome, count) in outcomes {
            let key = [outcome.route.rawValue, outcome.result.kind]
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
        let ceiling = min(configuration.maximumBackoff, configuration.retryBackoff * (1 << min(attempt - 2, 16)))
        let backoff = ceiling * Double.random(in: 0.5...1)
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
        var failures = 0
        while !unsaved.isEmpty {
            let batch = unsaved
            unsaved = []
            do {
                // In a task of its own: storage refuses work from a cancelled task, and a stop
                // must still store what was delivered.
                // At a stop, no longer than the drain allows.
                let store = self.store
                let work = Task { try await store.completeDeliveries(batch) }
                // At least a second: deliveries that finished at the drain deadline still get
                // their outcomes stored (the stop's margin allows it).
                let limit = giveUpAt.map { max(.seconds(1), $0 - ContinuousClock.now) } ?? .seconds(86_400)
                switch await outcome(of: work, within: max(.zero, limit)) {
                case .finished(let result): try result.get()
                case .timedOut: throw StoreDeadlineExceeded()
                }
                health.succeeded(.dispatcher)
                let now = ContinuousClock.now
                for completed in batch {
                    held.remove(completed.deliveryID)
                    recentlyStored[completed.deliveryID] = now
                }
            } catch {
                unsaved = batch + unsaved
                failures += 1
                health.failed(.dispatcher)
                if let giveUpAt, ContinuousClock.now >= giveUpAt {
                    // Stopping, and the store still fails: these stay pending in the log and are
                    // delivered again by whoever takes them up (the inbox keeps one item per
                    // firing; a push carries the occurrence as its collapse id).
                    logger.error("stopping with delivery outcomes unstored; they stay pending",
                                 metadata: ["count": "\(unsaved.count)", "error": "\(error)"])
                    unsaved = []
                    return
                }
                logger.error("storing delivery outcomes failed; retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: storeRetryDelay(afterFailures: failures))
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
        giveUpAt = deadline
        // Cancelled rather than asked to stop: nothing to wait for, store what is there.
        while !running.isEmpty, !Task.isCancelled, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        await Task { await self.flushAll(before: deadline) }.value
    }

    /// Waits for a flush under way, then stores what is left; a store that keeps failing is
    /// given up on at `deadline` (the firings stay pending), so a stop is bounded.
    private func flushAll(before deadline: ContinuousClock.Instant) async {
        while flushing, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
        await flush()
    }
}

extension DeliveryOutcome {
    /// A fault, not an answer: a push that did not reach APNs or got no answer (a transport
    /// failure, a timeout, a 5xx after the gateway's own retries), or a store call that failed.
    /// Never stored as an outcome; the delivery is tried again. Refusals are final.
    public var isFault: Bool {
        if case .failed = result { return true }
        return route == .push && (apnsStatus ?? 0) >= 500
    }
}
