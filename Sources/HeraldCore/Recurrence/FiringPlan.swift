import Foundation

/// What to do with a notification whose next occurrence is due: which occurrence fires, whether
/// it is late, how many it stands for, and where the series goes next.
///
/// After downtime a repeating notification fires once, for its latest due occurrence, counting the
/// earlier due ones as missed, and resumes at its first future occurrence.
public struct FiringPlan: Hashable, Sendable {
    public var index: Int
    public var scheduledFor: Date
    public var late: Bool
    public var missed: Int
    /// The occurrence after this one, or nil when the series has ended.
    public var next: Next?

    public struct Next: Hashable, Sendable {
        public var index: Int
        public var date: Date

        public init(index: Int, date: Date) {
            self.index = index
            self.date = date
        }
    }

    /// - Parameters:
    ///   - dueIndex: the stored next index, whose occurrence is at or before `now`.
    ///   - lateAfter: how far past its instant an occurrence must be to count as late.
    /// - Returns: nil when the series has no occurrence at `dueIndex` (it already ended).
    public static func plan(_ recurrence: Recurrence, dueIndex: Int, now: Date, lateAfter: TimeInterval) -> FiringPlan? {
        guard let dueDate = recurrence.occurrence(dueIndex) else { return nil }
        guard dueDate <= now else {
            // Not due yet (the caller woke early); fire nothing, keep the same next.
            return nil
        }
        let next = recurrence.firstOccurrence(after: now)
        let lastDue = next.map { max(dueIndex, $0.index - 1) } ?? lastExistingIndex(recurrence, from: dueIndex)
        let lastDueDate = recurrence.occurrence(lastDue) ?? dueDate
        return FiringPlan(index: lastDue, scheduledFor: lastDueDate,
                          late: now.timeIntervalSince(lastDueDate) > lateAfter,
                          missed: lastDue - dueIndex,
                          next: next.map { Next(index: $0.index, date: $0.date) })
    }

    /// The largest index with an occurrence, for a series known to have ended, found by doubling
    /// then bisecting rather than by stepping through every occurrence.
    private static func lastExistingIndex(_ recurrence: Recurrence, from start: Int) -> Int {
        var low = start
        var step = 1
        while recurrence.occurrence(low + step) != nil {
            low += step
            step *= 2
        }
        var high = low + step  // no occurrence here
        while high - low > 1 {
            let mid = low + (high - low) / 2
            if recurrence.occurrence(mid) != nil { low = mid } else { high = mid }
        }
        return low
    }
}
