import Foundation
import HeraldCore
import HeraldStorage
import Logging
import Metrics
import ServiceLifecycle

/// Fires local notifications on time.
///
/// One timer sleeps until the earliest pending fire instant; nothing polls. When it wakes, every
/// occurrence due within ``Configuration/batchWindow`` fires as one batch, stored in one
/// transaction (deliveries recorded as pending, one-shots removed, repeating ones advanced), and
/// is then handed to the ``DeliveryChannel``, whose outcomes complete the recorded deliveries.
public actor SchedulerEngine: Service {
    public struct Configuration: Sendable {
        /// Occurrences due this close together fire as one batch.
        public var batchWindow: TimeInterval
        /// An occurrence firing more than this after its instant is marked late.
        public var lateAfter: TimeInterval
        /// Upper bound on one batch, so a huge backlog is worked through in bounded steps.
        public var maximumBatch: Int

        public init(batchWindow: TimeInterval = 0.002, lateAfter: TimeInterval = 1, maximumBatch: Int = 5_000) {
            self.batchWindow = batchWindow
            self.lateAfter = lateAfter
            self.maximumBatch = maximumBatch
        }
    }

    private let store: any NotificationStore
    private let channel: any DeliveryChannel
    private let clock: any SchedulerClock
    private let configuration: Configuration
    private let logger: Logger
    private let firedCounter = Counter(label: "herald_occurrences_fired_total")
    private let latenessTimer = Metrics.Timer(label: "herald_fire_lateness_seconds")

    private var timers = TimerQueue()
    private var isLoaded = false
    /// The sleep in progress and the instant it ends at, so an earlier arrival can cut it short.
    private var sleeper: Task<Void, Never>?
    private var sleepingUntil: Int64?
    /// Outcomes not yet stored: they ride along with the next batch's transaction, or are
    /// flushed before the timer sleeps, so a busy engine commits once per batch.
    private var unsavedCompletions: [CompletedDelivery] = []

    public init(store: any NotificationStore, channel: any DeliveryChannel, clock: any SchedulerClock = SystemClock(),
                configuration: Configuration = Configuration(), logger: Logger = Logger(label: "herald.scheduler")) {
        self.store = store
        self.channel = channel
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
    }

    /// Number of timer entries held, stale ones included.
    public var armedCount: Int { timers.count }

    /// Loads every pending notification's timer and re-delivers deliveries a crash left pending.
    /// Idempotent; ``run()`` calls it too.
    public func load() async throws {
        guard !isLoaded else { return }
        timers.load(try await store.timerEntries())
        isLoaded = true
        let pending = try await store.pendingDeliveries()
        if !pending.isEmpty {
            logger.info("re-delivering deliveries left pending by the last run", metadata: ["count": "\(pending.count)"])
            await redeliver(pending)
        }
    }

    /// Adds timer entries for notifications just stored, waking the timer if one is sooner.
    public func arm(_ entries: [TimerEntry]) {
        guard !entries.isEmpty else { return }
        var earliest = Int64.max
        for entry in entries {
            timers.insert(entry)
            earliest = min(earliest, entry.fireAt)
        }
        if let sleepingUntil, earliest < sleepingUntil {
            sleeper?.cancel()
        }
    }

    /// Delivers a notification now without storing it, and records the delivery.
    public func present(_ content: NotificationContent, notificationID: String, device: Device) async throws -> Delivery {
        let now = clock.now()
        let occurrence = Occurrence(appID: device.appID, deviceID: device.id, notificationID: notificationID,
                                    index: 0, scheduledFor: now, late: false, missed: 0)
        let outcome = await channel.deliver([FiredOccurrence(occurrence: occurrence, content: content, device: device,
                                                             firedAt: now)]).first
            ?? DeliveryOutcome(channel: "none", outcome: "notDelivered")
        let delivery = Delivery(occurrenceID: occurrence.id, appID: device.appID, deviceID: device.id,
                                notificationID: notificationID, scheduledFor: now, firedAt: now, late: false, missed: 0,
                                channel: outcome.channel, outcome: outcome.outcome, apnsStatus: outcome.apnsStatus,
                                apnsID: outcome.apnsID)
        try await store.recordDeliveries([delivery])
        return delivery
    }

    // MARK: Running

    public func run() async throws {
        try await load()
        await cancelWhenGracefulShutdown {
            await self.runLoop()
        }
    }

    private func runLoop() async {
        while !Task.isCancelled {
            let windowEnd = clock.now().millisecondsSince1970 + Int64(configuration.batchWindow * 1000)
            if let next = timers.first, next.fireAt <= windowEnd {
                _ = await fireBatch()
            } else {
                await flushCompletions()
                await sleep(until: timers.first?.fireAt)
            }
        }
        sleeper?.cancel()
        await flushCompletions()
    }

    private func flushCompletions() async {
        guard !unsavedCompletions.isEmpty else { return }
        let completions = unsavedCompletions
        unsavedCompletions = []
        do {
            try await store.completeDeliveries(completions)
        } catch {
            // Still pending in storage: a restart hands them over again; keep trying meanwhile.
            unsavedCompletions = completions + unsavedCompletions
            logger.error("storing delivery outcomes failed", metadata: ["error": "\(error)"])
        }
    }

    private func sleep(until fireAt: Int64?) async {
        let deadline = fireAt.map { Date(millisecondsSince1970: $0) } ?? clock.now().addingTimeInterval(3600)
        let clock = self.clock
        let task = Task { _ = try? await clock.sleep(until: deadline) }
        sleeper = task
        sleepingUntil = fireAt ?? .max
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        sleeper = nil
        sleepingUntil = nil
    }

    /// Fires one batch of everything due now (within the batch window) and stores every
    /// outcome. Returns how many occurrences fired. Tests call this to step time by hand.
    @discardableResult
    public func fireDueBatch() async -> Int {
        let fired = await fireBatch()
        await flushCompletions()
        return fired
    }

    private func fireBatch() async -> Int {
        let now = clock.now()
        let windowEnd = now.millisecondsSince1970 + Int64(configuration.batchWindow * 1000)
        var keys: [Int64] = []
        var seen = Set<Int64>()
        while let next = timers.first, next.fireAt <= windowEnd, keys.count < configuration.maximumBatch {
            _ = timers.popFirst()
            if seen.insert(next.key).inserted { keys.append(next.key) }
        }
        guard !keys.isEmpty else { return 0 }
        do {
            let due = try await store.dueNotifications(keys: keys)
            return try await fire(due, now: now, windowEnd: windowEnd)
        } catch is CancellationError {
            return 0
        } catch {
            // Storage failed: nothing was committed. Put the timers back and retry shortly.
            logger.error("firing a batch failed; retrying in 1 s", metadata: ["error": "\(error)"])
            let retryAt = now.millisecondsSince1970 + 1000
            for key in keys { timers.insert(TimerEntry(fireAt: retryAt, key: key)) }
            return 0
        }
    }

    private func fire(_ due: [DueNotification], now: Date, windowEnd: Int64) async throws -> Int {
        var deliveries: [Delivery] = []
        var fired: [FiredOccurrence] = []
        var advances: [FiringBatch.Advance] = []
        for item in due {
            let notification = item.notification
            // A stale entry (re-timed or replaced since it was armed) points at a row not yet due.
            guard notification.nextFireDate.millisecondsSince1970 <= windowEnd else { continue }
            let deviceZone = TimeZone(identifier: item.device.timeZone) ?? TimeZone(identifier: "UTC")!
            let evaluatedAt = max(now, notification.nextFireDate)
            guard let plan = FiringPlan.plan(notification.recurrence(deviceTimeZone: deviceZone),
                                             dueIndex: notification.nextIndex, now: evaluatedAt,
                                             lateAfter: configuration.lateAfter)
            else {
                advances.append(.init(key: item.key, revision: item.revision, next: nil))
                continue
            }
            let occurrence = Occurrence(appID: notification.appID, deviceID: notification.deviceID,
                                        notificationID: notification.id, index: plan.index,
                                        scheduledFor: plan.scheduledFor, late: plan.late, missed: plan.missed)
            deliveries.append(Delivery(occurrenceID: occurrence.id, appID: occurrence.appID,
                                       deviceID: occurrence.deviceID, notificationID: occurrence.notificationID,
                                       scheduledFor: plan.scheduledFor, firedAt: now, late: plan.late,
                                       missed: plan.missed, channel: "pending", outcome: "pending"))
            fired.append(FiredOccurrence(occurrence: occurrence, content: notification.content, device: item.device,
                                         firedAt: now))
            advances.append(.init(key: item.key, revision: item.revision, next: plan.next))
        }
        guard !advances.isEmpty else { return 0 }
        let completions = unsavedCompletions
        unsavedCompletions = []
        let commit: FiringCommit
        do {
            commit = try await store.commitFiring(FiringBatch(deliveries: deliveries, advances: advances,
                                                             completions: completions))
        } catch {
            unsavedCompletions = completions + unsavedCompletions
            throw error
        }
        for entry in commit.armed { timers.insert(entry) }
        firedCounter.increment(by: fired.count)
        for item in fired {
            latenessTimer.recordNanoseconds(max(0, Int64(now.timeIntervalSince(item.occurrence.scheduledFor) * 1e9)))
        }
        let outcomes = await channel.deliver(fired)
        unsavedCompletions += zip(commit.deliveryIDs, outcomes).map(Self.completed)
        return fired.count
    }

    private static func completed(_ id: Int64, _ outcome: DeliveryOutcome) -> CompletedDelivery {
        CompletedDelivery(deliveryID: id, channel: outcome.channel, outcome: outcome.outcome,
                          apnsStatus: outcome.apnsStatus, apnsID: outcome.apnsID)
    }

    private func redeliver(_ pending: [PendingDelivery]) async {
        var closed: [CompletedDelivery] = []
        var ids: [Int64] = []
        var batch: [FiredOccurrence] = []
        for item in pending {
            guard let notification = item.notification, let device = item.device else {
                closed.append(CompletedDelivery(deliveryID: item.deliveryID, channel: "none", outcome: "notificationGone"))
                continue
            }
            let delivery = item.delivery
            let occurrence = Occurrence(appID: delivery.appID, deviceID: delivery.deviceID,
                                        notificationID: delivery.notificationID,
                                        index: Occurrence.index(fromID: delivery.occurrenceID),
                                        scheduledFor: delivery.scheduledFor, late: true, missed: delivery.missed)
            ids.append(item.deliveryID)
            batch.append(FiredOccurrence(occurrence: occurrence, content: notification.content, device: device))
        }
        let outcomes = batch.isEmpty ? [] : await channel.deliver(batch)
        closed += zip(ids, outcomes).map(Self.completed)
        do {
            try await store.completeDeliveries(closed)
        } catch {
            logger.error("could not complete re-delivered deliveries", metadata: ["error": "\(error)"])
        }
    }
}
