import Foundation

/// The per-device cap on pending notifications, and what to do at the cap.
///
/// iOS keeps at most 64 pending local notifications per app; Herald's cap is 128 per device.
/// A repeating notification counts once, however many occurrences it has left.
public enum NotificationLimit {
    public static let maximumPending = 128

    /// One notification already pending on the device, as the limit sees it.
    public struct Pending: Hashable, Sendable {
        public var id: String
        public var nextFireDate: Date
        /// Order of arrival, so that ties on fire date evict the newest first.
        public var sequence: Int64

        public init(id: String, nextFireDate: Date, sequence: Int64) {
            self.id = id
            self.nextFireDate = nextFireDate
            self.sequence = sequence
        }
    }

    /// Decides whether `incoming` may be stored next to `pending`.
    ///
    /// - Returns: the ids to evict to make room (empty when there is room). With `keepSoonest` the
    ///   list may hold `incoming.id` itself, when it fires later than all 128 others.
    /// - Throws: `notificationLimitReached` (a conflict) under the `reject` policy.
    public static func admit(_ incoming: Pending, into pending: [Pending], policy: OverflowPolicy,
                             maximum: Int = maximumPending) throws(HeraldError) -> [String] {
        // Replacing an id that is already pending never grows the set.
        let others = pending.filter { $0.id != incoming.id }
        guard others.count >= maximum else { return [] }
        switch policy {
        case .reject:
            throw HeraldError(.conflict, reason: .notificationLimitReached,
                              message: "the device already has \(others.count) pending notifications; the limit is \(maximum)")
        case .keepSoonest:
            let ranked = (others + [incoming]).sorted { lhs, rhs in
                (lhs.nextFireDate, lhs.sequence) < (rhs.nextFireDate, rhs.sequence)
            }
            return ranked[maximum...].map(\.id)
        }
    }
}
