import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// Inbound hook definitions, idempotency keys, and the feedback outbox. Idempotency keys are
/// claimed by the primary key (`ON CONFLICT DO NOTHING`), never by a select first; outbox
/// messages are claimed like firings, with `SKIP LOCKED` and a lease, so each goes out from one node.
extension PostgresStore {
    // MARK: Hooks

    public func saveHook(name: String, definition: String) async throws -> Bool {
        let now = Date().millisecondsSince1970
        return try await transaction { connection in
            try await connection.row("""
                INSERT INTO hook (name, definition, updated_at) VALUES (\(name), \(definition), \(now))
                ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at
                RETURNING (xmax = 0)
                """, logger: self.logger)?.value(0, as: Bool.self) ?? false
        }
    }

    public func hook(name: String) async throws -> String? {
        try await read { connection in
            try await connection.row("SELECT definition FROM hook WHERE name = \(name)", logger: self.logger)?
                .value(0, as: String.self)
        }
    }

    public func deleteHook(name: String) async throws -> Bool {
        try await transaction { connection in
            try await connection.count("DELETE FROM hook WHERE name = \(name) RETURNING 1", logger: self.logger) > 0
        }
    }

    public func claimIdempotencyKeys(hook: String, keys: [String], now: Date, retention: TimeInterval,
                                     lease: TimeInterval) async throws -> IdempotencyRecord? {
        let distinct = Array(Set(keys))
        let at = now.millisecondsSince1970
        return try await transaction { connection in
            try await connection.run("""
                DELETE FROM idempotency WHERE created_at < \(now.addingTimeInterval(-retention).millisecondsSince1970)
                """, logger: self.logger)
            try await connection.run("""
                DELETE FROM idempotency
                WHERE state = 'processing' AND created_at < \(now.addingTimeInterval(-lease).millisecondsSince1970)
                """, logger: self.logger)
            // The insert waits for a concurrent claim of the same key to commit, then skips it.
            let claimed = try await connection.rows("""
                INSERT INTO idempotency (hook, key, state, created_at)
                SELECT \(hook), k, 'processing', \(at) FROM unnest(\(distinct)::text[]) AS u(k)
                ON CONFLICT DO NOTHING
                RETURNING key
                """, logger: self.logger).map { try $0.value(0, as: String.self) }
            if claimed.count == distinct.count { return nil }
            // Seen before: give back what this request claimed, and answer as the first one did.
            try await connection.run("DELETE FROM idempotency WHERE hook = \(hook) AND key = ANY(\(claimed)::text[])",
                                     logger: self.logger)
            let taken = Set(distinct).subtracting(claimed)
            guard let first = keys.first(where: taken.contains),
                  let row = try await connection.row("""
                      SELECT state, response FROM idempotency WHERE hook = \(hook) AND key = \(first)
                      """, logger: self.logger) else { return .inProgress }
            return try row.value(0, as: String.self) == "completed"
                ? .completed(try row.value(1, as: String?.self) ?? "{}") : .inProgress
        }
    }

    public func completeIdempotencyKeys(hook: String, keys: [String], response: String) async throws {
        try await transaction { connection in
            try await connection.run("""
                UPDATE idempotency SET state = 'completed', response = \(response)
                WHERE hook = \(hook) AND key = ANY(\(keys)::text[])
                """, logger: self.logger)
        }
    }

    public func releaseIdempotencyKeys(hook: String, keys: [String]) async throws {
        try await transaction { connection in
            try await connection.run("""
                DELETE FROM idempotency WHERE hook = \(hook) AND key = ANY(\(keys)::text[]) AND state = 'processing'
                """, logger: self.logger)
        }
    }

    // MARK: Feedback events

    public func recordFeedback(_ events: [FeedbackEvent]) async throws {
        guard !events.isEmpty else { return }
        let types = events.map(\.type.rawValue), appIDs = events.map(\.appID)
        let payloads = try events.map { try Self.json($0.payload) }
        let createdAt = events.map { $0.createdAt.millisecondsSince1970 }
        try await transaction { connection in
            try await connection.run("""
                INSERT INTO feedback_event (type, app_id, payload, created_at)
                SELECT * FROM unnest(\(types)::text[], \(appIDs)::text[], \(payloads)::text[], \(createdAt)::bigint[])
                """, logger: self.logger)
        }
        feedbackRaised()
    }

    // MARK: Outbox

    /// Each receiver's cursor row is locked (`FOR UPDATE`) while its events are copied.
    public func fanOutFeedback(to receivers: [String], now: Date, room: @escaping @Sendable (_ waiting: Int) -> Int,
                               decide: @escaping @Sendable (FeedbackReceiverBacklog) -> FeedbackReceiverPlan) async throws
        -> [(backlog: FeedbackReceiverBacklog, plan: FeedbackReceiverPlan?)] {
        let at = now.millisecondsSince1970
        return try await transaction { connection in
            var written: [(backlog: FeedbackReceiverBacklog, plan: FeedbackReceiverPlan?)] = []
            for url in receivers {
                try await connection.run("""
                    INSERT INTO feedback_receiver (url, last_event_key) VALUES (\(url), 0) ON CONFLICT DO NOTHING
                    """, logger: self.logger)
                let row = try await connection.row("""
                    SELECT last_event_key, (SELECT count(*) FROM outbox WHERE url = \(url) AND state = 'pending')
                    FROM feedback_receiver WHERE url = \(url) FOR UPDATE
                    """, logger: self.logger)!
                var backlog = FeedbackReceiverBacklog(url: url, cursor: try row.value(0), waiting: Int(try row.value(1, as: Int64.self)),
                                                      events: [])
                let count = room(backlog.waiting)
                guard count > 0 else {
                    written.append((backlog, nil))
                    continue
                }
                backlog.events = try await connection.rows("""
                    SELECT key, type, app_id, payload, created_at FROM feedback_event WHERE key > \(backlog.cursor)
                    ORDER BY key LIMIT \(count)
                    """, logger: self.logger).map { row in
                    StoredFeedbackEvent(key: try row.value(0), type: try row.value(1), appID: try row.value(2),
                                        payload: try row.value(3), createdAt: try row.value(4))
                }
                let plan = decide(backlog)
                try await connection.run("""
                    WITH added AS (
                        INSERT INTO outbox (event_key, url, type, body, next_attempt_at, state, created_at)
                        SELECT m.key, \(url), m.type, m.body, \(at), 'pending', \(at)
                        FROM unnest(\(plan.messages.map(\.eventKey))::bigint[], \(plan.messages.map(\.type.rawValue))::text[],
                            \(plan.messages.map(\.body))::text[]) AS m(key, type, body)
                    )
                    UPDATE feedback_receiver SET last_event_key = \(plan.cursor) WHERE url = \(url)
                    """, logger: self.logger)
                written.append((backlog, plan))
            }
            return written
        }
    }

    /// Leases messages due for an attempt, oldest first, each under a token of its own, for
    /// `lease` by the database's clock: another node skips them until the attempt's outcome is
    /// stored or the lease runs out, and a holder whose lease ran out can no longer write.
    public func leaseOutboxMessages(limit: Int, lease: Duration) async throws -> [OutboxMessage] {
        try await transaction { connection in
            try await connection.rows("""
                UPDATE outbox SET claimed_by = \(self.nodeID), lease_until = \(unescaped: Self.databaseNow) + \(lease.wholeMilliseconds),
                    lease_token = gen_random_uuid()::text
                WHERE key IN (
                    SELECT key FROM outbox
                    WHERE state = 'pending' AND next_attempt_at <= \(unescaped: Self.databaseNow)
                        AND (lease_until IS NULL OR lease_until < \(unescaped: Self.databaseNow))
                    ORDER BY next_attempt_at, key LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED)
                RETURNING \(unescaped: Self.outboxColumns), lease_token
                """, logger: self.logger).map { row in
                var message = try Self.outboxMessage(from: row)
                message.leaseToken = try row.value(9, as: String.self)
                return message
            }.sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
        }
    }

    public func renewOutboxLease(_ id: Int64, token: String, lease: Duration) async throws -> Bool {
        try await read { connection in
            try await connection.count("""
                UPDATE outbox SET lease_until = \(unescaped: Self.databaseNow) + \(lease.wholeMilliseconds)
                WHERE key = \(id) AND lease_token = \(token) AND state = 'pending'
                RETURNING 1
                """, logger: self.logger) > 0
        }
    }

    /// How long until the next pending message may be attempted: a message leased to another
    /// node counts from the end of its lease. Measured on the database's clock.
    public func nextOutboxAttempt() async throws -> Duration? {
        try await read { connection in
            try await connection.row("""
                SELECT min(greatest(next_attempt_at, coalesce(lease_until, 0))) - \(unescaped: Self.databaseNow)
                FROM outbox WHERE state = 'pending'
                """, logger: self.logger)?.value(0, as: Int64?.self).map { .milliseconds(max(0, $0)) }
        }
    }

    public func outboxMessages(state: OutboxMessage.State?, limit: Int) async throws -> [OutboxMessage] {
        try await read { connection in
            if let state {
                return try await connection.rows("""
                    SELECT \(unescaped: Self.outboxColumns) FROM outbox WHERE state = \(state.rawValue)
                    ORDER BY key DESC LIMIT \(limit)
                    """, logger: self.logger).map(Self.outboxMessage(from:))
            }
            return try await connection.rows("""
                SELECT \(unescaped: Self.outboxColumns) FROM outbox ORDER BY key DESC LIMIT \(limit)
                """, logger: self.logger).map(Self.outboxMessage(from:))
        }
    }

    public func markOutboxDelivered(_ id: Int64, token: String) async throws -> Bool {
        try await transaction { connection in
            try await connection.count("""
                UPDATE outbox SET state = 'delivered', attempts = attempts + 1, last_error = NULL,
                    claimed_by = NULL, lease_until = NULL, lease_token = NULL
                WHERE key = \(id) AND lease_token = \(token)
                RETURNING 1
                """, logger: self.logger) > 0
        }
    }

    public func markOutboxFailed(_ id: Int64, token: String, error: String, retryAfter: Duration,
                                 parked: Bool) async throws -> Bool {
        let state = parked ? OutboxMessage.State.parked : .pending
        return try await transaction { connection in
            try await connection.count("""
                UPDATE outbox SET attempts = attempts + 1, last_error = \(error),
                    next_attempt_at = \(unescaped: Self.databaseNow) + \(retryAfter.wholeMilliseconds),
                    claimed_by = NULL, lease_until = NULL, lease_token = NULL,
                    state = \(state.rawValue)
                WHERE key = \(id) AND lease_token = \(token)
                RETURNING 1
                """, logger: self.logger) > 0
        }
    }

    public func retryOutboxMessage(_ id: Int64, now: Date) async throws -> Bool {
        try await transaction { connection in
            try await connection.count("""
                UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = \(now.millisecondsSince1970)
                WHERE key = \(id) AND state = 'parked'
                RETURNING 1
                """, logger: self.logger) > 0
        }
    }

    static let outboxColumns = "key, event_key, url, type, body, attempts, next_attempt_at, state, last_error"

    static func outboxMessage(from row: PostgresRandomAccessRow) throws -> OutboxMessage {
        OutboxMessage(id: try row.value(0), eventID: try row.value(1), url: try row.value(2), type: try row.value(3),
                      body: try row.value(4), attempts: try row.value(5),
                      nextAttemptAt: Date(millisecondsSince1970: try row.value(6)),
                      state: OutboxMessage.State(rawValue: try row.value(7)) ?? .pending, lastError: try row.value(8))
    }

    // MARK: Retention

    /// Deletes at most `batchSize` expired rows of each kind, one short transaction per kind.
    public func pruneExpired(now: Date, policy: RetentionPolicy, batchSize: Int) async throws -> Int {
        let (deliveries, feedback, idempotency) = policy.cutoffs(now: now)
        let statements: [PostgresQuery] = [
            """
            DELETE FROM delivery WHERE key IN (
                SELECT key FROM delivery WHERE fired_at < \(deliveries) AND outcome <> 'pending'
                    AND (inbox_seq IS NULL OR inbox_acknowledged) ORDER BY key LIMIT \(batchSize))
            RETURNING 1
            """,
            """
            DELETE FROM feedback_event WHERE key IN (
                SELECT key FROM feedback_event WHERE created_at < \(feedback) LIMIT \(batchSize))
            RETURNING 1
            """,
            """
            DELETE FROM outbox WHERE key IN (
                SELECT key FROM outbox WHERE state <> 'pending' AND created_at < \(feedback) LIMIT \(batchSize))
            RETURNING 1
            """,
            """
            DELETE FROM idempotency WHERE (hook, key) IN (
                SELECT hook, key FROM idempotency WHERE created_at < \(idempotency) LIMIT \(batchSize))
            RETURNING 1
            """,
        ]
        var deleted = 0
        for statement in statements {
            deleted += try await transaction { connection in try await connection.count(statement, logger: self.logger) }
        }
        return deleted
    }
}
