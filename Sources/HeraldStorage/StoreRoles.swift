import Foundation
import HeraldCore

/// Durable state, seen through narrow role protocols: each part of Herald names only the role it
/// uses, so a second backend (PostgreSQL, for several nodes) implements the same contracts and
/// nothing outside storage and the composition root names a concrete store.
///
/// Every method is one logical change in one transaction, and every method that returns has
/// committed: nothing it accepted can be lost to a crash of the process.
public typealias HeraldStore = DeviceStore & ScheduleStore & CoalescerStore & SchedulerStore & DeliveryStore & HookStore & OutboxStore & RetentionStore
    & StatusStore & ListingStore

/// Apps, devices, their notifications and lifecycle, as the HTTP API manages them.
public protocol DeviceStore: Sendable {
    /// Creates or updates an app. Returns true when it was created.
    func saveApp(_ app: App) async throws -> Bool
    func app(id: String) async throws -> App?
    /// Deletes an app with its devices and their notifications. Returns false if it did not exist.
    func deleteApp(id: String) async throws -> Bool

    /// Creates or updates a device. A changed time zone re-times its floating notifications in
    /// the same transaction; their new timer entries come back for the scheduler to arm.
    func saveDevice(_ device: Device, now: Date) async throws -> DeviceSaveResult
    func device(appID: String, id: String) async throws -> Device?
    func deleteDevice(appID: String, id: String) async throws -> Bool

    /// Registers (or replaces) a running Live Activity's update token on a device, read and
    /// written in one transaction; the token counts as registered anew (a dead mark is lifted).
    /// Returns true when the activity was new, false when replaced, nil when there is no device.
    func saveActivity(appID: String, deviceID: String, activity: String, token: LiveActivityToken,
                      now: Date) async throws -> Bool?
    /// Forgets an activity's token. Returns false when the device or activity was unknown.
    func forgetActivity(appID: String, deviceID: String, activity: String) async throws -> Bool
    /// Stores a new broadcast channel as its audience. Returns false, changing nothing, when the
    /// app already has a channel of that name: two creates racing keep the first.
    ///
    /// - Throws: `appNotFound`.
    func createChannel(_ channel: BroadcastChannel, appID: String, now: Date) async throws -> Bool
    /// The app's broadcast channels, by name. Each is stored as the audience
    /// ``BroadcastChannel/audienceID(name:)`` (saved and deleted as a device), so its scheduled
    /// broadcasts follow every rule of a device's notifications.
    func channels(appID: String) async throws -> [BroadcastChannel]

    /// Pending notifications of a device, soonest first.
    func notifications(appID: String, deviceID: String) async throws -> [LocalNotification]
    func notification(appID: String, deviceID: String, id: String) async throws -> LocalNotification?
    func cancel(appID: String, deviceID: String, id: String) async throws -> Bool
    /// Returns how many were cancelled.
    func cancelAll(appID: String, deviceID: String) async throws -> Int

    func recordDeliveries(_ deliveries: [Delivery]) async throws
    /// Newest first.
    func deliveries(appID: String, deviceID: String, limit: Int) async throws -> [Delivery]
    /// Queues feedback events for the outbound webhooks.
    func recordFeedback(_ events: [FeedbackEvent]) async throws
}

/// What the timer needs: when things are due, and the claim that fires them.
public protocol SchedulerStore: Sendable {
    /// Every pending notification's timer entry, in no particular order.
    func timerEntries() async throws -> [TimerEntry]
    /// Claims what is due at or before `until`: in one write transaction, reads the due
    /// notifications (soonest first, at most `limit`), asks `decide` what each does, commits each
    /// firing to the fire log (the deliveries table, with the content to deliver and a unique
    /// occurrence) and advances, re-arms or removes its notification. A cancel or replace
    /// committed before the claim is seen by it; nothing is read outside the transaction.
    ///
    /// A firing that `holding` says can only end in its device's inbox, and whose instant has
    /// come by `firedAt`, may be held in the same write, its outcome stored: it is returned in
    /// ``FiringClaim/heldInInbox``, not ``FiringClaim/fired``. Without a rule every firing is
    /// returned to deliver; a store may also leave one to deliver that it could not hold at once
    /// (PostgreSQL, when another transaction holds the device's row).
    ///
    /// - Parameter from: no pending notification is due before this instant, as the caller knows
    ///   (the soonest timer entry it fires, less a margin), or nil. A store whose due index keeps
    ///   dead entries while vacuum is held back (PostgreSQL) scans from there instead of from the
    ///   index's start, widened by whatever its own clock adds to the caller's; others may ignore it.
    /// - Returns: the firings to hand to delivery, those held already, the timer entries to arm
    ///   next, and whether `limit` cut the claim short (more may be due).
    func claimDue(from: Date?, until: Date, firedAt: Date, limit: Int, holding: InboxOnlyRule?,
                  decide: @escaping @Sendable (DueNotification) -> FiringDecision) async throws -> FiringClaim

    /// How many claims of one node are worth having in flight at once when a backlog is due:
    /// more than one only where claims in flight together take disjoint rows and the store works
    /// on one while the node decides another.
    var concurrentClaims: Int { get }
}

extension SchedulerStore {
    /// One claim at a time.
    public var concurrentClaims: Int { 1 }

    /// A claim over everything due, from the due index's start.
    public func claimDue(until: Date, firedAt: Date, limit: Int, holding: InboxOnlyRule?,
                         decide: @escaping @Sendable (DueNotification) -> FiringDecision) async throws -> FiringClaim {
        try await claimDue(from: nil, until: until, firedAt: firedAt, limit: limit, holding: holding, decide: decide)
    }

    /// A claim that holds nothing itself: every firing is returned to deliver.
    public func claimDue(until: Date, firedAt: Date, limit: Int,
                         decide: @escaping @Sendable (DueNotification) -> FiringDecision) async throws -> FiringClaim {
        try await claimDue(from: nil, until: until, firedAt: firedAt, limit: limit, holding: nil, decide: decide)
    }
}

/// What delivery needs: the fire log's unfinished firings and their outcomes, the inbox, app
/// settings for routing, and the token ledger.
public protocol DeliveryStore: Sendable {
    func app(id: String) async throws -> App?
    /// Firings in the fire log whose outcome was never stored (a crash or a stop came first),
    /// oldest first, with their device as it is now; `orphaned` are those whose device is gone.
    func unfinishedFirings() async throws -> (fired: [FiredOccurrence], orphaned: [Int64])
    /// Records deliveries made outside the fire log (`present`).
    func recordDeliveries(_ deliveries: [Delivery]) async throws
    /// Sets the final outcome of firings recorded as pending.
    func completeDeliveries(_ outcomes: [CompletedDelivery]) async throws
    /// Holds fired local notifications in their devices' inboxes until acknowledged; each firing
    /// at most once. Returns each item's sequence id (nil when its device is gone, or when the
    /// firing is no longer this node's: taken over by another, or its outcome stored).
    ///
    /// - Parameter hold: whether the firings' outcome (held) is stored with them (``InboxHold``).
    @discardableResult
    func holdInInbox(_ items: [InboxItem], _ hold: InboxHold) async throws -> [Int64?]
    /// Queues feedback events for the outbound webhooks.
    func recordFeedback(_ events: [FeedbackEvent]) async throws
    /// Marks a token dead and queues the feedback event, in one transaction. Re-registering the
    /// token on a device (`saveDevice`) makes it valid again. Returns false, changing nothing,
    /// when a device registered the token after APNs' timestamp (a late 410 for a fresh token).
    @discardableResult
    func invalidateToken(_ invalid: InvalidToken, feedback: FeedbackEvent) async throws -> Bool
    func invalidToken(appID: String, token: String) async throws -> InvalidToken?
    /// Which of `tokens` are known dead for the app: one read for a whole delivery batch.
    func invalidTokens(appID: String, among tokens: Set<String>) async throws -> Set<String>
}

extension DeliveryStore {
    /// Holds items whose inbox is where they end (``InboxHold/final``).
    @discardableResult
    public func holdInInbox(_ items: [InboxItem]) async throws -> [Int64?] {
        try await holdInInbox(items, .final)
    }
}

/// Signed inbound hooks: their definitions, and the idempotency and replay records.
public protocol HookStore: Sendable {
    /// Creates or replaces a hook's definition (JSON). Returns true when it was created.
    func saveHook(name: String, definition: String) async throws -> Bool
    func hook(name: String) async throws -> String?
    func deleteHook(name: String) async throws -> Bool
    /// Claims every key of one request at once; nil when none was seen before (all now claimed).
    func claimIdempotencyKeys(hook: String, keys: [String], now: Date, retention: TimeInterval,
                              lease: TimeInterval) async throws -> IdempotencyRecord?
    /// Stores the answer under every key of the request.
    func completeIdempotencyKeys(hook: String, keys: [String], response: String) async throws
    /// Forgets the claims of a request that failed before doing anything.
    func releaseIdempotencyKeys(hook: String, keys: [String]) async throws
}

/// The outbound feedback webhooks' durable outbox.
public protocol OutboxStore: Sendable {
    /// Calls `observer` whenever feedback events are raised, so the dispatcher need not poll.
    func observeFeedback(_ observer: @escaping @Sendable () -> Void)
    /// Fans new feedback events out, one receiver after the other, in one transaction: with the
    /// receiver's cursor locked (two nodes fanning out at once copy each event once), reads how
    /// many of its messages wait, asks `room` how many events to read after its cursor, reads
    /// them, asks `decide` what to write, and writes the messages and the cursor it returns.
    ///
    /// - Returns: each receiver's backlog as read, with what was written for it (nil when
    ///   `room` asked for nothing).
    func fanOutFeedback(to receivers: [String], now: Date, room: @escaping @Sendable (_ waiting: Int) -> Int,
                        decide: @escaping @Sendable (FeedbackReceiverBacklog) -> FeedbackReceiverPlan) async throws
        -> [(backlog: FeedbackReceiverBacklog, plan: FeedbackReceiverPlan?)]
    /// Leases messages due for an attempt, oldest first, each to the caller for `lease` by the
    /// store's clock, under a token of its own (``OutboxMessage/leaseToken``): nobody else
    /// attempts a message while its lease runs.
    func leaseOutboxMessages(limit: Int, lease: Duration) async throws -> [OutboxMessage]
    /// Extends the lease of a message still held under `token`. Returns false when it is not.
    func renewOutboxLease(_ id: Int64, token: String, lease: Duration) async throws -> Bool
    /// How long until the next pending message may be attempted (zero when one is due), by the
    /// store's clock; nil when none is pending.
    func nextOutboxAttempt() async throws -> Duration?
    func outboxMessages(state: OutboxMessage.State?, limit: Int) async throws -> [OutboxMessage]
    /// Records a delivery by the holder of lease `token`. Returns false, changing nothing, when
    /// the lease was lost (it ran out and someone else holds the message now).
    func markOutboxDelivered(_ id: Int64, token: String) async throws -> Bool
    /// Records a failed attempt by the holder of lease `token`: tried again after `retryAfter`,
    /// or `parked`. Returns false, changing nothing, when the lease was lost.
    func markOutboxFailed(_ id: Int64, token: String, error: String, retryAfter: Duration,
                          parked: Bool) async throws -> Bool
    /// Puts a parked message back in line. Returns false if there is no such parked message.
    func retryOutboxMessage(_ id: Int64, now: Date) async throws -> Bool
}

/// Pruning history older than its retention.
public protocol RetentionStore: Sendable {
    /// Deletes at most `batchSize` expired rows of each kind; returns how many were deleted.
    func pruneExpired(now: Date, policy: RetentionPolicy, batchSize: Int) async throws -> Int
}

/// One pending notification as the timer sees it: when, and which row.
public struct TimerEntry: Hashable, Sendable {
    /// Milliseconds since the epoch.
    public var fireAt: Int64
    /// The store's key for the notification.
    public var key: Int64

    public init(fireAt: Int64, key: Int64) {
        self.fireAt = fireAt
        self.key = key
    }
}

public struct DeviceSaveResult: Sendable {
    public var created: Bool
    public var rearmed: [TimerEntry]

    public init(created: Bool, rearmed: [TimerEntry]) {
        self.created = created
        self.rearmed = rearmed
    }
}

public struct ScheduleResult: Sendable {
    /// The timer entry for the stored notification; nil when keepSoonest evicted it at once.
    public var armed: TimerEntry?
    public var replaced: Bool
    public var evicted: [String]

    public init(armed: TimerEntry?, replaced: Bool, evicted: [String]) {
        self.armed = armed
        self.replaced = replaced
        self.evicted = evicted
    }
}

/// A notification whose timer came due, with the device facts firing needs.
public struct DueNotification: Sendable {
    public var key: Int64
    public var notificationID: String
    public var schedule: NotificationSchedule
    /// The stored next occurrence: its index and instant.
    public var nextIndex: Int
    public var nextFireDate: Date
    public var device: Device

    public init(key: Int64, notificationID: String, schedule: NotificationSchedule, nextIndex: Int, nextFireDate: Date,
                device: Device) {
        self.key = key
        self.notificationID = notificationID
        self.schedule = schedule
        self.nextIndex = nextIndex
        self.nextFireDate = nextFireDate
        self.device = device
    }

    /// ``FiringDecision`` for this row.
    public func decision(deviceTimeZone: TimeZone, now: Date, lateAfter: TimeInterval) -> FiringDecision {
        FiringDecision.decide(schedule, nextIndex: nextIndex, nextFireDate: nextFireDate,
                              deviceTimeZone: deviceTimeZone, now: now, lateAfter: lateAfter)
    }
}

/// What one claim fired and re-armed.
public struct FiringClaim: Sendable {
    /// Firings committed to the fire log, each with its log id, to deliver.
    public var fired: [FiredOccurrence]
    /// Firings committed to the fire log already held in their devices' inboxes, with their
    /// outcome (``CompletedDelivery/heldInInbox(_:)``): nothing left to deliver or store.
    public var heldInInbox: [FiredOccurrence] = []
    /// Timer entries for the notifications that go on.
    public var armed: [TimerEntry]
    /// The claim stopped at its limit: more may be due now.
    public var more: Bool

    public init(fired: [FiredOccurrence], armed: [TimerEntry], more: Bool) {
        self.fired = fired
        self.armed = armed
        self.more = more
    }
}

/// The final outcome of a delivery that was recorded as pending.
public struct CompletedDelivery: Sendable {
    public var deliveryID: Int64
    public var channel: DeliveryRoute
    public var outcome: DeliveryResult
    public var apnsStatus: Int?
    public var apnsID: String?

    public init(deliveryID: Int64, channel: DeliveryRoute, outcome: DeliveryResult, apnsStatus: Int? = nil,
                apnsID: String? = nil) {
        self.deliveryID = deliveryID
        self.channel = channel
        self.outcome = outcome
        self.apnsStatus = apnsStatus
        self.apnsID = apnsID
    }

    /// The outcome of a firing held in its device's inbox, as the fire log stores it. A store
    /// may write it when it holds the item, in the same write, so that storing it again later
    /// changes nothing.
    public static func heldInInbox(_ deliveryID: Int64) -> CompletedDelivery {
        CompletedDelivery(deliveryID: deliveryID, channel: .inbox, outcome: .held)
    }

    /// The `channel` and `outcome` columns of ``heldInInbox(_:)``.
    public static let heldChannel = DeliveryRoute.inbox.rawValue
    public static let heldOutcome = DeliveryResult.held.rawValue
}

extension Date {
    /// Milliseconds since the epoch, the unit storage and timers use.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// What a store shared by several nodes adds to the roles: leases on the firings a node is
/// delivering, and word of the timers other nodes armed. SQLite, used by one node, has none.
public protocol NodeStore: Sendable {
    /// This node's name, as leases and logs show it.
    var nodeID: String { get }
    /// How long a claim on a firing lasts without a renewal.
    var leaseMilliseconds: Int64 { get }
    /// Records the heartbeat and extends the leases on this node's firings in delivery, by the
    /// store's clock.
    func renewLeases() async throws
    /// Firings without an outcome whose node stopped renewing them, and this node's own that
    /// stayed pending for longer than a lease without being handed to its dispatcher, now
    /// leased to this node.
    func takeOverExpiredFirings() async throws -> (fired: [FiredOccurrence], orphaned: [Int64])
    /// The soonest pending instant, for the sweep that covers word lost between nodes.
    func earliestPendingFire() async throws -> Int64?
    /// Calls `armed` with the instants other nodes armed, until cancelled or disconnected.
    func listenForArming(_ armed: @escaping @Sendable ([Int64]) async -> Void) async throws
    /// Leaves the cluster at a clean stop, after the dispatcher drained: the other nodes take
    /// over what it still holds at their next heartbeat instead of after a lease.
    func leave() async throws
}

/// Read-only counts and lists for operators: the gauges on `/metrics`, the status page and
/// `herald status`. Nothing here changes what is stored.
public protocol StatusStore: Sendable {
    /// A trivial read: throws when the store cannot be reached (`/readyz`).
    func probe() async throws
    /// Whole-store counts; see ``StoreGauges``.
    func storeGauges() async throws -> StoreGauges
    /// Coalesced notifications a wake would hand over now, by event kind, over every device. It
    /// reads every device's queue: for the metrics scrape, not for pages.
    func eventBacklogByKind() async throws -> [String: Int]
    /// Every app with its device, pending and invalid-token counts, by id.
    func appStatuses() async throws -> [AppStatus]
    /// An app's devices (at most `limit`, by id) with their pending, inbox and backlog counts.
    func deviceStatuses(appID: String, limit: Int) async throws -> [DeviceStatus]
    /// The oldest `limit` items held in a device's inbox.
    func inboxEntries(appID: String, deviceID: String, limit: Int) async throws -> [InboxListing]
}
