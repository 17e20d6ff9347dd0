import Foundation

extension LocalNotification {
    /// Where a floating notification resumes after its device moved to `zone`: its first
    /// occurrence after `now` in the new zone, never an index already fired. Flying west, the
    /// next occurrence keeps its index and moves to its new instant; flying east past it, it is
    /// due now. One whose pending occurrence the move put in the past, with nothing after it,
    /// keeps that occurrence so it still fires once, late.
    ///
    /// - Returns: nil when the series has nothing left: the notification is removed.
    public func resumed(inDeviceZone zone: TimeZone, now: Date) -> FiringPlan.Next? {
        let recurrence = recurrence(deviceTimeZone: zone)
        let pending = recurrence.occurrence(nextIndex).map { FiringPlan.Next(index: nextIndex, date: $0) }
        var upcoming = recurrence.firstOccurrence(after: now).map { FiringPlan.Next(index: $0.index, date: $0.date) }
        if let candidate = upcoming, candidate.index < nextIndex { upcoming = pending }
        return upcoming ?? pending
    }
}
