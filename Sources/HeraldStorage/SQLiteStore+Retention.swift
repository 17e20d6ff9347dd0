import Foundation
import GRDB

/// How long records that only tell history are kept.
public struct RetentionPolicy: Sendable, Equatable {
    /// Delivery records (their outcomes), by when they fired; pending ones are never pruned.
    public var deliveries: TimeInterval
    /// Feedback events and the outbox messages made from them that are delivered or parked.
    public var feedback: TimeInterval
    /// Hook idempotency keys and signed-message replay records.
    public var idempotency: TimeInterval

    public init(deliveries: TimeInterval, feedback: TimeInterval, idempotency: TimeInterval) {
        self.deliveries = deliveries
        self.feedback = feedback
        self.idempotency = idempotency
    }

    /// The instants (unix milliseconds) before which each kind of record is pruned at `now`.
    public func cutoffs(now: Date) -> (deliveries: Int64, feedback: Int64, idempotency: Int64) {
        (now.addingTimeInterval(-deliveries).millisecondsSince1970, now.addingTimeInterval(-feedback).millisecondsSince1970,
         now.addingTimeInterval(-idempotency).millisecondsSince1970)
    }
}

extension SQLiteStore {
    /// The kinds of rows retention prunes, each with the statement that deletes one batch of
    /// them: `?1` is the cut-off in unix milliseconds, `?2` the batch size.
    enum PrunedRows: CaseIterable {
        case deliveries, feedbackEvents, outboxMessages, idempotencyKeys

        var sql: String {
            switch self {
            case .deliveries:
                // Oldest first by key (firings are logged in time order), so the scan stops at the
                // first batch found, without an index on fired_at slowing every firing. An inbox
                // item waiting for its acknowledgement is kept.
                return """
                    DELETE FROM delivery WHERE key IN (
                        SELECT key FROM delivery WHERE fired_at < ?1 AND outcome != 'pending'
                            AND (inbox_seq IS NULL OR inbox_acknowledged = 1) ORDER BY key LIMIT ?2)
                    """
            case .feedbackEvents:
                return "DELETE FROM feedback_event WHERE key IN (SELECT key FROM feedback_event WHERE created_at < ?1 LIMIT ?2)"
            case .outboxMessages:
                return """
                    DELETE FROM outbox WHERE key IN (
                        SELECT key FROM outbox WHERE state != 'pending' AND created_at < ?1 LIMIT ?2)
                    """
            case .idempotencyKeys:
                return """
                    DELETE FROM idempotency WHERE (hook, key) IN (
                        SELECT hook, key FROM idempotency WHERE created_at < ?1 LIMIT ?2)
                    """
            }
        }

        func cutoff(now: Date, policy: RetentionPolicy) -> Int64 {
            let cutoffs = policy.cutoffs(now: now)
            switch self {
            case .deliveries: return cutoffs.deliveries
            case .feedbackEvents, .outboxMessages: return cutoffs.feedback
            case .idempotencyKeys: return cutoffs.idempotency
            }
        }
    }

    /// Deletes at most `batchSize` rows of each kind that are older than `policy` keeps, one
    /// short transaction per kind, so the scheduler's writes wait at most one small batch.
    ///
    /// - Returns: how many rows were deleted; fewer than `batchSize` in all means nothing is left.
    public func pruneExpired(now: Date, policy: RetentionPolicy, batchSize: Int) async throws -> Int {
        var deleted = 0
        for kind in PrunedRows.allCases {
            let cutoff = kind.cutoff(now: now, policy: policy)
            deleted += try await connections.write { db in
                try db.execute(sql: kind.sql, arguments: [cutoff, batchSize])
                return db.changesCount
            }
        }
        return deleted
    }
}
