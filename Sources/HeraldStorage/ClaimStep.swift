import Foundation
import HeraldCore

/// What a claim writes for one due notification, whatever the backend: the occurrence to put in
/// the fire log (if one fires), and where the notification goes next (nil removes it).
public struct ClaimStep: Sendable, Equatable {
    /// The occurrence the notification goes on to, and its timer entry.
    public struct Next: Sendable, Equatable {
        public var index: Int
        public var entry: TimerEntry
    }

    public var firing: Occurrence?
    public var next: Next?

    /// - Parameters:
    ///   - decision: what the scheduler decided for `due`.
    ///   - due: the notification as the claim read it.
    public init(_ decision: FiringDecision, for due: DueNotification) {
        func next(_ upcoming: FiringPlan.Next) -> Next {
            Next(index: upcoming.index, entry: TimerEntry(fireAt: upcoming.date.millisecondsSince1970, key: due.key))
        }
        switch decision {
        case .ended:
            firing = nil
            self.next = nil
        case .notYetDue(let upcoming):
            firing = nil
            self.next = next(upcoming)
        case .fire(let plan):
            firing = Occurrence(appID: due.device.appID, deviceID: due.device.id, notificationID: due.notificationID,
                                index: plan.index, scheduledFor: plan.scheduledFor, late: plan.late, missed: plan.missed)
            self.next = plan.next.map(next)
        }
    }
}
