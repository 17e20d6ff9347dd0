import Foundation
import HeraldCore
import HeraldScheduler
import HeraldStorage

extension ScheduleStore {
    /// Schedules a notification built for its device through the schedule use case, arming
    /// nothing: what tests of a store, or of an engine armed by hand, store their notifications with.
    public func schedule(_ notification: LocalNotification, now: Date) async throws -> ScheduleResult {
        try await Scheduling(store: self).schedule(notification, now: now)
    }
}
