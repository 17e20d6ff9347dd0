import Foundation
import HeraldCore

/// Durable state for apps, devices, notifications and deliveries.
///
/// The protocol is narrow on purpose: each method is one logical change done in one transaction,
/// so a PostgreSQL implementation can provide the same guarantees. Every method that returns has
/// committed; nothing it accepted can be lost to a crash of the process.
public protocol NotificationStore: Sendable {
    // MARK: Apps

    /// Creates or updates an app. Returns true when it was created.
    func saveApp(_ app: App) async throws -> Bool
    func app(id: String) async throws -> App?
    /// Deletes an app with its devices and their notifications. Returns false if it did not exist.
    func deleteApp(id: String) async throws -> Bool

    // MARK: Devices

    /// Creates or updates a device. A changed time zone re-times its floating notifications in
    /// the same transaction; their new timer entries come back for the scheduler to arm.
    func saveDevice(_ device: Device, now: Date) async throws -> DeviceSaveResult
    func device(appID: String, id: String) async throws -> Device?
    func deleteDevice(appID: String, id: String) async throws -> Bool

    // MARK: Notifications

    /// Stores a notification (replacing one with the same id), applying the app's overflow policy
    /// against the device's pending notifications. Throws `notificationLimitReached` under `reject`.
    func schedule(_ notification: LocalNotification, now: Date) async throws -> ScheduleResult
    /// Pending notifications of a device, soonest first.
    func notifications(appID: String, deviceID: String) async throws -> [LocalNotification]
    func notification(appID: String, deviceID: String, id: String) async throws -> LocalNotification?
    func cancel(appID: String, deviceID: String, id: String) async throws -> Bool
    /// Returns how many were cancelled.
    func cancelAll(appID: String, deviceID: String) async throws -> Int

    // MARK: Deliveries

    func recordDeliveries(_ deliveries: [Delivery]) async throws
    /// Newest first.
    func deliveries(appID: String, deviceID: String, limit: Int) async throws -> [Delivery]

    // MARK: Tokens and feedback

    /// Marks a token dead and queues the feedback event, in one transaction. Re-registering the
    /// token on a device (`saveDevice`) makes it valid again. Returns false, changing nothing,
    /// when a device registered the token after APNs' timestamp (a late 410 for a fresh token).
    @discardableResult
    func invalidateToken(_ invalid: InvalidToken, feedback: FeedbackEvent) async throws -> Bool
    func invalidToken(appID: String, token: String) async throws -> InvalidToken?
    /// Queues feedback events for the outbound webhooks.
    func recordFeedback(_ events: [FeedbackEvent]) async throws
    /// Feedback events in the order they were raised, after the given key.
    func feedbackEvents(after key: Int64, limit: Int) async throws -> [(key: Int64, event: FeedbackEvent)]

    // MARK: Lifecycle and coalescing

    /// Moves a device to `state`. A move from asleep to awake, or any move with `drain`, wakes
    /// it: the coalesced backlog and the inbox are taken in the same transaction and returned.
    /// Throws `invalidTransition` for a move iOS cannot make.
    func setState(appID: String, deviceID: String, state: LifecycleState, drain: Bool,
                  catalog: EventCatalog) async throws -> WakeResult
    /// Records reported events: live for an awake, connected device (remembered as delivered),
    /// otherwise queued and collapsed. All are validated first; a refused event changes nothing.
    func ingestEvents(appID: String, deviceID: String, events: [SystemEvent], catalog: EventCatalog,
                      connected: Bool) async throws -> EventIngestion
    func eventBacklog(appID: String, deviceID: String, catalog: EventCatalog) async throws -> [CoalescedNotification]
    /// Holds fired local notifications for devices with no channel until they wake.
    func holdInInbox(_ items: [InboxItem]) async throws
    /// Throttles content-available wake pushes: true, and recorded, if fewer than `perHour` went
    /// out in the last hour.
    func recordWakePush(appID: String, deviceID: String, now: Date, perHour: Int) async throws -> Bool

    // MARK: Scheduler

    /// Every pending notification's timer entry, in no particular order.
    func timerEntries() async throws -> [TimerEntry]
    /// Loads the notifications behind these timer keys, with what firing needs of their device.
    /// Keys that no longer exist are left out.
    func dueNotifications(keys: [Int64]) async throws -> [DueNotification]
    /// Stores one fired batch in one transaction: deliveries recorded, one-shots and ended series
    /// removed, repeating ones advanced. A change made meanwhile (replace, cancel) wins over the
    /// advance. Returns the delivery ids in order, and the timer entries to arm next.
    func commitFiring(_ batch: FiringBatch) async throws -> FiringCommit
    /// Sets the final outcome of deliveries recorded as pending.
    func completeDeliveries(_ outcomes: [CompletedDelivery]) async throws
    /// Deliveries still pending, e.g. after a crash between recording and delivering.
    func pendingDeliveries() async throws -> [PendingDelivery]
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
}

public struct ScheduleResult: Sendable {
    /// The timer entry for the stored notification; nil when keepSoonest evicted it at once.
    public var armed: TimerEntry?
    public var replaced: Bool
    public var evicted: [String]
}

/// A notification whose timer came due, with the device facts firing needs.
public struct DueNotification: Sendable {
    public var key: Int64
    public var revision: Int64
    public var notification: LocalNotification
    public var device: Device
}

/// What a fired batch changes.
public struct FiringBatch: Sendable {
    public struct Advance: Sendable {
        public var key: Int64
        public var revision: Int64
        /// nil removes the notification (a one-shot, or a series that ended).
        public var next: FiringPlan.Next?

        public init(key: Int64, revision: Int64, next: FiringPlan.Next?) {
            self.key = key
            self.revision = revision
            self.next = next
        }
    }

    public var deliveries: [Delivery]
    public var advances: [Advance]
    /// Outcomes of earlier batches, stored in this batch's transaction rather than their own.
    public var completions: [CompletedDelivery]

    public init(deliveries: [Delivery], advances: [Advance], completions: [CompletedDelivery] = []) {
        self.deliveries = deliveries
        self.advances = advances
        self.completions = completions
    }
}

/// The final outcome of a delivery that was recorded as pending.
public struct CompletedDelivery: Sendable {
    public var deliveryID: Int64
    public var channel: String
    public var outcome: String
    public var apnsStatus: Int?
    public var apnsID: String?

    public init(deliveryID: Int64, channel: String, outcome: String, apnsStatus: Int? = nil, apnsID: String? = nil) {
        self.deliveryID = deliveryID
        self.channel = channel
        self.outcome = outcome
        self.apnsStatus = apnsStatus
        self.apnsID = apnsID
    }
}

public struct FiringCommit: Sendable {
    public var deliveryIDs: [Int64]
    public var armed: [TimerEntry]
}

public struct PendingDelivery: Sendable {
    public var deliveryID: Int64
    public var delivery: Delivery
    /// nil when the notification is gone; the delivery is then closed without sending.
    public var notification: LocalNotification?
    public var device: Device?
}

extension Date {
    /// Milliseconds since the epoch, the unit storage and timers use.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
