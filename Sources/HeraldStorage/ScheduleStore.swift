import Foundation
import HeraldCore

/// What scheduling a notification reads and writes. The use case (``Scheduling``, in
/// HeraldScheduler) decides in HeraldCore (``NotificationLimit``) on what a store reads, and the
/// store writes that plan; each backend only says how, in its own SQL.
///
/// The read, the decision and the write are one atomic step, whatever the backend: no other
/// schedule for the device commits in between. SQLite decides inside its write transaction.
/// PostgreSQL reads, decides and writes with one guarded statement that commits by itself (two
/// round trips, no lock held between them); when another schedule for the device committed
/// first, it decides again under the device's row lock.
public protocol ScheduleStore: Sendable {
    /// The app, the device and the device's pending notifications, read at one instant.
    ///
    /// - Throws: ``HeraldError`` `appNotFound` or `deviceNotFound`.
    func scheduleSnapshot(appID: String, deviceID: String) async throws -> ScheduleSnapshot

    /// Reads the device's ``ScheduleSnapshot``, asks `decide` for the plan, and writes the plan
    /// (evictions, the notification, feedback events) in one atomic step.
    ///
    /// - Parameter decide: the use case's decision; it may be asked more than once (each time on
    ///   a newer snapshot), and what it throws is thrown here, with nothing written.
    /// - Returns: the snapshot the written plan was decided on, the plan, and the stored
    ///   notification's timer entry (nil when the plan stores none).
    /// - Throws: `appNotFound`, `deviceNotFound`, what `decide` throws, a ``StoreFault``.
    func schedule(appID: String, deviceID: String,
                  decide: @escaping @Sendable (ScheduleSnapshot) throws -> SchedulePlan) async throws -> ScheduleWrite
}

/// What a schedule wrote, and what it was decided on.
public struct ScheduleWrite: Sendable {
    public var snapshot: ScheduleSnapshot
    public var plan: SchedulePlan
    /// The stored notification's timer entry; nil when the plan stored none.
    public var armed: TimerEntry?

    public init(snapshot: ScheduleSnapshot, plan: SchedulePlan, armed: TimerEntry?) {
        self.snapshot = snapshot
        self.plan = plan
        self.armed = armed
    }
}

/// What a schedule decides from, read at one instant.
public struct ScheduleSnapshot: Sendable {
    public var app: App
    public var device: Device
    /// The device's pending notifications, in no particular order: each carries its key (the
    /// order it was first stored), which the limit ranks by after its instant.
    public var pending: [NotificationLimit.Pending]
    /// Moves with every schedule written for the device: a store that writes a plan apart from
    /// its read writes it only while this has not moved.
    public var version: Int64

    public init(app: App, device: Device, pending: [NotificationLimit.Pending], version: Int64) {
        self.app = app
        self.device = device
        self.pending = pending
        self.version = version
    }
}

/// A schedule's decision, as a store writes it.
public struct SchedulePlan: Sendable {
    public var appID: String
    public var deviceID: String
    /// The snapshot's ``ScheduleSnapshot/version``.
    public var version: Int64
    /// Pending notifications to remove first, by id.
    public var evict: [String]
    /// The notification decided on.
    public var notification: LocalNotification
    /// Whether it is stored (replacing one of the same id): false when it was evicted at once.
    public var stores: Bool
    /// Feedback events committed with the plan (one per eviction).
    public var feedback: [FeedbackEvent]
    /// The instant the plan was decided, as the stored row's creation time.
    public var now: Date

    public init(appID: String, deviceID: String, version: Int64, evict: [String], notification: LocalNotification,
                stores: Bool, feedback: [FeedbackEvent], now: Date) {
        self.appID = appID
        self.deviceID = deviceID
        self.version = version
        self.evict = evict
        self.notification = notification
        self.stores = stores
        self.feedback = feedback
        self.now = now
    }

    /// The notification to store, if it is stored.
    public var store: LocalNotification? { stores ? notification : nil }
}
