import Foundation

/// What happens to a notification whose timer came due, decided from its recurrence alone.
///
/// The store applies the decision in the same transaction that read the notification, so a
/// cancel or a replace committed before it is seen, and one committed after it finds the
/// notification already advanced.
public enum FiringDecision: Hashable, Sendable {
    /// Fire this occurrence; then advance to `plan.next`, or remove the notification when nil.
    case fire(FiringPlan)
    /// The stored instant was early (rounding, a tzdata change): fire nothing, keep the same
    /// occurrence, armed at its real instant. Never a reason to delete.
    case notYetDue(FiringPlan.Next)
    /// The series has no occurrence at the stored index: it ended; remove it.
    case ended

    /// Decides for a notification with `schedule` whose stored next occurrence is `nextIndex`
    /// at `nextFireDate`, at `now`.
    ///
    /// An occurrence stored as due within the batch window fires at its stored instant rather
    /// than waiting for the clock to reach it, so a batch fires together.
    ///
    /// - Parameters:
    ///   - deviceTimeZone: the device's zone, for floating notifications.
    ///   - lateAfter: how far past its instant an occurrence must be to count as late.
    public static func decide(_ schedule: NotificationSchedule, nextIndex: Int, nextFireDate: Date,
                              deviceTimeZone: TimeZone, now: Date, lateAfter: TimeInterval) -> FiringDecision {
        let recurrence = schedule.recurrence(deviceTimeZone: deviceTimeZone)
        guard let dueDate = recurrence.occurrence(nextIndex) else { return .ended }
        let evaluatedAt = max(now, nextFireDate)
        guard dueDate <= evaluatedAt else {
            return .notYetDue(FiringPlan.Next(index: nextIndex, date: dueDate))
        }
        guard let plan = FiringPlan.plan(recurrence, dueIndex: nextIndex, now: evaluatedAt,
                                         lateAfter: lateAfter) else { return .ended }
        return .fire(plan)
    }
}
