import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStorage
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Fires local notifications on time, and never waits on delivery.
///
/// One timer sleeps until the earliest pending fire instant; nothing polls. When it wakes, it
/// claims every occurrence due within ``Configuration/batchWindow`` in one transaction (firings
/// committed to the fire log with their content, one-shots removed, repeating ones advanced),
/// hands the firings to the ``DeliveryDispatcher`` without waiting, and goes back to sleep. A
/// backlog bigger than one claim is worked through by claims in flight together, as many as
/// the store says pay (``SchedulerStore/concurrentClaims``). A
/// firing its channel's `InboxOnlyRule` takes is held by the claim itself, where the store can.
public actor SchedulerEngine: Service {
    public struct Configuration: Sendable {
        /// Occurrences due this close together fire as one batch.
        public var batchWindow: TimeInterval
        /// An occurrence firing more than this after its instant is marked late.
        public var lateAfter: TimeInterval
        /// Upper bound on one claim, so a huge backlog is worked through in bounded steps.
        public var maximumBatch: Int

        public init(batchWindow: TimeInterval = 0.002, lateAfter: TimeInterval = 1, maximumBatch: Int = 5_000) {
            self.batchWindow = batchWindow
            self.lateAfter = lateAfter
            self.maximumBatch = maximumBatch
        }
    }

    private let store: any SchedulerStore & DeliveryStore
    private let channel: any DeliveryChannel
    /// Delivers what the timer fired, off its path.
    public nonisolated let dispatcher: DeliveryDispatcher
    private let clock: any SchedulerClock
    private let configuration: Configuration
    private let logger: Logger
    private let latenessTimer = Metrics.Timer(label: "herald_fire_lateness_seconds", preferredDisplayUnit: .seconds)
    /// Lateness of every firing since start, in buckets, for the status page.
    public nonisolated let lateness = FiringLateness()
    /// How the timer and the dispatcher are doing, for `/readyz` and the metrics.
    public nonisolated let health: LoopHealth
    /// How far below the soonest timer entry a claim scans: rounding and clocks between where an
    /// instant is written and where it is armed.
    static let floorMargin: Int64 = 1_000

    private var timers = TimerQueue()
    private var isLoaded = false
    /// The sleep in progress and the instant it ends at, so an earlier arrival can cut it short.
    private var sleeper: Task<Void, Never>?
    private var sleepingUntil: Int64?
    /// The soonest timer entry a claim fired that was cut short (its limit, an error, a stop):
    /// the next claim scans from there too, as the entries it still has to cover are gone.
    private var unfinishedFloor: Int64?
    /// Device zones tzdata no longer knows, each logged once.
    private let unknownZones = UnknownZones()
    /// Told of the firings each claim held in their inboxes itself, once committed.
    private var heldByClaimObserver: (@Sendable ([FiredOccurrence]) -> Void)?

    /// - Parameters:
    ///   - channel: where fired occurrences go, through the dispatcher (and `present` directly).
    ///   - dispatcher: by default one over `channel` with default settings.
    public init(store: any SchedulerStore & DeliveryStore, channel: any DeliveryChannel, dispatcher: DeliveryDispatcher? = nil,
                clock: any SchedulerClock = SystemClock(), configuration: Configuration = Configuration(),
                health: LoopHealth = LoopHealth(), logger: Logger = Logger(label: "herald.scheduler")) {
        self.store = store
        self.channel = channel
        self.health = health
        self.dispatcher = dispatcher ?? DeliveryDispatcher(store: store, channel: channel, health: health, logger: logger)
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
    }

    /// Number of timer entries held, stale ones included.
    public var armedCount: Int { timers.count }

    /// Loads every pending notification's timer, and hands the dispatcher the firings a crash or
    /// a stop left without an outcome. Idempotent; ``run()`` calls it too.
    public func load() async throws {
        guard !isLoaded else { return }
        timers.load(try await store.timerEntries())
        isLoaded = true
        try await dispatcher.recover()
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

    /// Calls `observer` with the firings each claim holds in their devices' inboxes itself (see
    /// `InboxOnlyRule`), right after the claim commits: they never reach the channel, whose
    /// `deliver` sees the rest. Benchmarks time delivery with it.
    public func observeHeldByClaim(_ observer: @escaping @Sendable ([FiredOccurrence]) -> Void) {
        heldByClaimObserver = observer
    }

    /// Delivers a notification now without storing it, and records the delivery.
    public func present(_ content: NotificationContent, notificationID: String, device: Device) async throws -> Delivery {
        let now = clock.now()
        let occurrence = Occurrence(appID: device.appID, deviceID: device.id, notificationID: notificationID,
                                    index: 0, scheduledFor: now, late: false, missed: 0)
        let outcome = await channel.deliver([try FiredOccurrence(occurrence: occurrence, content: content, device: device,
                                                                 firedAt: now)]).first
            ?? .notDelivered
        let delivery = Delivery(occurrenceID: occurrence.id, appID: device.appID, deviceID: device.id,
                                notificationID: notificationID, scheduledFor: now, firedAt: now, late: false, missed: 0,
                                channel: outcome.route, outcome: outcome.result, apnsStatus: outcome.apnsStatus,
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
                _ = await fireBatch(window: configuration.batchWindow)
            } else {
                await sleep(until: timers.first?.fireAt)
            }
        }
        sleeper?.cancel()
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

    /// Fires one batch of everything due now and waits until the dispatcher has delivered it
    /// and stored every outcome. Returns how many occurrences fired. Tests call this to step
    /// time by hand, so it claims nothing ahead (no batch window): nothing waits for a clock
    /// that only the caller moves.
    @discardableResult
    public func fireDueBatch() async -> Int {
        let fired = await fireBatch(window: 0, continuing: false)
        await dispatcher.settle()
        return fired
    }

    /// Claims what is due and hands it to the dispatcher; never waits for delivery.
    ///
    /// - Parameter continuing: a claim cut short by its limit is followed at once, with up to the
    ///   store's ``SchedulerStore/concurrentClaims`` in flight, until one comes back whole; without
    ///   it (tests stepping time), one claim, and a timer entry for now when it was cut short.
    private func fireBatch(window: TimeInterval, continuing: Bool = true) async -> Int {
        let windowEnd = clock.now().millisecondsSince1970 + Int64(window * 1000)
        // The timer only says when to look; the store says what is due, in the claim itself. The
        // soonest entry fired says where to look from: every pending notification has an entry
        // here, or on the node that armed it, or is found by the sweep (NodeCoordinator), which
        // arms the soonest pending instant.
        var floor = unfinishedFloor ?? .max
        var entries = 0
        while let next = timers.first, next.fireAt <= windowEnd {
            floor = min(floor, timers.popFirst()!.fireAt)
            entries += 1
        }
        let from = floor == .max ? nil : floor
        unfinishedFloor = from
        let depth = continuing ? max(1, store.concurrentClaims) : 1
        let request = ClaimRequest(from: from.map { Date(millisecondsSince1970: $0 - Self.floorMargin) },
                                   window: window, limit: configuration.maximumBatch)
        var fired = 0
        // A claim failed: start no more. Something left behind: the next batch scans from the floor too.
        var stopped = false
        var leftBehind = false
        await withTaskGroup(of: ClaimAttempt.self) { group in
            // As many claims at once as the entries due certainly need (an entry may be stale).
            var running = 0
            for _ in 0..<min(depth, max(1, (entries + request.limit - 1) / request.limit)) {
                group.addTask { await self.claim(request) }
                running += 1
            }
            while let attempt = await group.next() {
                running -= 1
                let following = continuing && !stopped
                let (count, ended) = await take(attempt, following: following)
                fired += count
                switch ended {
                case .cutShort where following:
                    while running < depth {
                        group.addTask { await self.claim(request) }
                        running += 1
                    }
                case .cutShort:
                    leftBehind = true
                case .whole:
                    break
                case .failed:
                    stopped = true
                    leftBehind = true
                }
            }
        }
        if !leftBehind { unfinishedFloor = nil }
        return fired
    }

    /// Where one batch's claims look (from the floor, through the window after each claim's now:
    /// a long backlog's last claims take what came due meanwhile, in order), and how much each
    /// takes at most.
    private struct ClaimRequest: Sendable {
        var from: Date?
        var window: TimeInterval
        var limit: Int
    }

    /// One claim as it came back, with the instant it was made at.
    private struct ClaimAttempt: Sendable {
        var now: Date
        var result: Result<FiringClaim, any Error>
    }

    /// How a claim ended, for the batch that made it.
    private enum ClaimEnd {
        /// Nothing due was left behind (as of its read).
        case whole
        /// Its limit cut it short: more may be due.
        case cutShort
        /// It failed or was cancelled; a timer entry retries.
        case failed
    }

    /// Runs one claim off the actor: PostgreSQL claims in flight together read disjoint rows.
    private nonisolated func claim(_ request: ClaimRequest) async -> ClaimAttempt {
        let now = clock.now()
        let lateAfter = configuration.lateAfter
        let zones = unknownZones
        do {
            let claim = try await store.claimDue(from: request.from, until: now.addingTimeInterval(request.window),
                                                 firedAt: now,
                                                 limit: request.limit,
                                                 holding: channel.inboxOnlyRule) { due in
                due.decision(deviceTimeZone: zones.zone(due.device.timeZone), now: now, lateAfter: lateAfter)
            }
            return ClaimAttempt(now: now, result: .success(claim))
        } catch {
            return ClaimAttempt(now: now, result: .failure(error))
        }
    }

    /// Arms what a claim armed and hands over what it fired.
    private func take(_ attempt: ClaimAttempt, following: Bool) async -> (fired: Int, ended: ClaimEnd) {
        let now = attempt.now
        switch attempt.result {
        case .success(let claim):
            for entry in claim.armed { timers.insert(entry) }
            // Cut short by the batch limit and not followed by another claim: look again at once.
            if claim.more && !following {
                timers.insert(TimerEntry(fireAt: now.millisecondsSince1970, key: -1))
            }
            health.succeeded(.timer)
            for zone in unknownZones.takeNewlyUnknown() {
                logger.error("device time zone unknown to this system's tzdata; its floating notifications fire in UTC",
                             metadata: ["zone": "\(zone)"])
            }
            if !claim.heldInInbox.isEmpty {
                // Held by the claim, at or after their instant: handed over at its commit.
                heldByClaimObserver?(claim.heldInInbox)
                await dispatcher.countHeldByClaim(claim.heldInInbox.count)
                recordLateness(of: claim.heldInInbox, handedOverAt: clock.now())
            }
            if !claim.fired.isEmpty { await handOver(claim.fired) }
            return (claim.fired.count + claim.heldInInbox.count, claim.more ? .cutShort : .whole)
        case .failure(is CancellationError):
            timers.insert(TimerEntry(fireAt: now.millisecondsSince1970, key: -1))
            return (0, .failed)
        case .failure(let error):
            // Storage failed. Nothing was committed, or the reply was lost after the commit: then
            // the firings are this node's, pending, and the heartbeat takes them up again.
            health.failed(.timer)
            logger.error("claiming a batch failed; retrying in 1 s", metadata: ["error": "\(error)"])
            timers.insert(TimerEntry(fireAt: now.millisecondsSince1970 + 1000, key: -1))
            return (0, .failed)
        }
    }
}

extension SchedulerEngine {
    /// Hands `fired` to the dispatcher, none before its instant.
    ///
    /// The batch window claims what is due in the next few milliseconds together; what was
    /// claimed early waits here, in groups by instant, and goes when its instant comes. A stop
    /// during the wait leaves the rest pending in the fire log, where the next start (or, on
    /// several nodes, a take-over) hands it over: late, never early.
    func handOver(_ fired: [FiredOccurrence]) async {
        let byInstant = Dictionary(grouping: fired) { $0.occurrence.scheduledFor }
        for instant in byInstant.keys.sorted() {
            if instant > clock.now() {
                do { try await clock.sleep(until: instant) } catch { return }
            }
            let group = byInstant[instant]!
            await dispatcher.enqueue(group)
            // Counted by channel and outcome once delivered (the dispatcher); lateness now.
            recordLateness(of: group, handedOverAt: clock.now())
        }
    }

    private func recordLateness(of fired: [FiredOccurrence], handedOverAt: Date) {
        let late = fired.map { max(0, handedOverAt.timeIntervalSince($0.occurrence.scheduledFor)) }
        for seconds in late { latenessTimer.recordNanoseconds(Int64(seconds * 1e9)) }
        lateness.record(late)
    }
}

/// Device zones that tzdata does not know, remembered so each is logged once; UTC stands in.
final class UnknownZones: Sendable {
    private let state = Mutex<(known: Set<String>, unlogged: [String])>(([], []))

    func zone(_ identifier: String) -> TimeZone {
        if let zone = TimeZone(identifier: identifier) { return zone }
        state.withLock { state in
            if state.known.insert(identifier).inserted { state.unlogged.append(identifier) }
        }
        return TimeZone(identifier: "UTC")!
    }

    func takeNewlyUnknown() -> [String] {
        state.withLock { state in
            defer { state.unlogged = [] }
            return state.unlogged
        }
    }
}
