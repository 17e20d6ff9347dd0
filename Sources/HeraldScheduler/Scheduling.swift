import Foundation
import HeraldCore
import HeraldStorage

/// The schedule use case, on every backend: read the device and its pending notifications, build
/// the notification and apply the 128 limit (HeraldCore), write the decision with its eviction
/// feedback in one transaction, and arm the timer.
///
/// ```swift
/// let scheduling = Scheduling(store: store, arm: { await engine.arm($0) })
/// let scheduled = try await scheduling.schedule(appID: "app", deviceID: "phone", now: .now) { snapshot in
///     LocalNotification(appID: "app", deviceID: "phone", id: "standup", ...)
/// }
/// ```
public struct Scheduling: Sendable {
    private let store: any ScheduleStore
    private let arm: @Sendable ([TimerEntry]) async -> Void

    /// - Parameters:
    ///   - store: where the device is read and the decision written.
    ///   - arm: told the timer entry of each stored notification, after it committed.
    public init(store: any ScheduleStore, arm: @escaping @Sendable ([TimerEntry]) async -> Void = { _ in }) {
        self.store = store
        self.arm = arm
    }

    /// What a schedule stored: the notification as built, and what became of it.
    public struct Scheduled: Sendable {
        public var notification: LocalNotification
        public var result: ScheduleResult
    }

    /// Schedules (or replaces) one notification on a device.
    ///
    /// - Parameters:
    ///   - now: the instant of the request: due dates are computed from it by `prepare`, and the
    ///     eviction feedback carries it.
    ///   - prepare: builds the notification from what was read (the device's zone and platform,
    ///     the app's settings); it throws to refuse the request. It may run more than once.
    /// - Returns: the notification and what became of it.
    /// - Throws: `appNotFound`, `deviceNotFound`, what `prepare` throws, `notificationLimitReached`
    ///   (a conflict) when the device is full under the `reject` policy; a ``StoreFault``.
    public func schedule(appID: String, deviceID: String, now: Date,
                         prepare: @escaping @Sendable (ScheduleSnapshot) throws -> LocalNotification) async throws -> Scheduled {
        let written = try await store.schedule(appID: appID, deviceID: deviceID) { snapshot in
            try Self.decide(prepare(snapshot), on: snapshot, now: now)
        }
        if let armed = written.armed { await arm([armed]) }
        let notification = written.plan.notification
        let replaced = written.snapshot.pending.contains { $0.id == notification.id }
        return Scheduled(notification: notification,
                         result: ScheduleResult(armed: written.armed, replaced: replaced, evicted: written.plan.evict))
    }

    /// Schedules a notification already built for its device.
    public func schedule(_ notification: LocalNotification, now: Date) async throws -> ScheduleResult {
        try await schedule(appID: notification.appID, deviceID: notification.deviceID, now: now) { _ in notification }.result
    }

    /// The plan for `notification` on `snapshot`: the app's overflow policy at the 128 limit
    /// (``NotificationLimit``), with a feedback event for each eviction.
    static func decide(_ notification: LocalNotification, on snapshot: ScheduleSnapshot, now: Date) throws -> SchedulePlan {
        let incoming = NotificationLimit.Pending(id: notification.id, nextFireDate: notification.nextFireDate,
                                                 sequence: Int64.max)
        let evicted = try NotificationLimit.admit(incoming, into: snapshot.pending, policy: snapshot.app.overflow)
        let (appID, deviceID) = (notification.appID, notification.deviceID)
        return SchedulePlan(appID: appID, deviceID: deviceID, version: snapshot.version, evict: evicted,
                            notification: notification, stores: !evicted.contains(notification.id),
                            feedback: evicted.map { evictionFeedback($0, appID: appID, deviceID: deviceID, at: now) },
                            now: now)
    }

    /// The `notification.evicted` event for a notification `keepSoonest` removed.
    static func evictionFeedback(_ id: String, appID: String, deviceID: String, at now: Date) -> FeedbackEvent {
        FeedbackEvent(type: .notificationEvicted, appID: appID,
                      payload: ["app": .string(appID), "device": .string(deviceID), "notificationId": .string(id),
                                "reason": .string(OverflowPolicy.keepSoonest.rawValue)],
                      createdAt: now)
    }
}
