import Foundation
import GRDB
import HeraldCore

/// Inbound hook definitions, idempotency keys, and the durable outbox of feedback webhooks.
extension SQLiteStore {
    // MARK: Hooks

    public func saveHook(name: String, definition: String) async throws -> Bool {
        let now = Date().millisecondsSince1970
        return try await connections.write { db in
            let existed = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM hook WHERE name = ?"),
                arguments: [name]) ?? false
            try db.cachedStatement(sql: """
                INSERT INTO hook (name, definition, updated_at) VALUES (?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at
                """).execute(arguments: [name, definition, now])
            return !existed
        }
    }

    public func hook(name: String) async throws -> String? {
        try await connections.read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT definition FROM hook WHERE name = ?"),
                arguments: [name])
        }
    }

    public func deleteHook(name: String) async throws -> Bool {
        try await connections.write { db in
            try db.cachedStatement(sql: "DELETE FROM hook WHERE name = ?").execute(arguments: [name])
            return db.changesCount > 0
        }
    }

    /// Claims every key of one hook request at once: its signed message, and any idempotency
    /// keys it carries. Returns nil when none was seen before (all are now claimed, in one
    /// transaction), else the record of the first one seen: its stored answer, or that it is
    /// still in progress. The table's primary key makes a second claim of the same key fail,
    /// not a select before the insert.
    ///
    /// Keys older than `retention` are forgotten first, and a claim still `processing` after
    /// `lease` (its request died mid-way, say in a crash) may be taken over.
    public func claimIdempotencyKeys(hook: String, keys: [String], now: Date, retention: TimeInterval,
                                     lease: TimeInterval) async throws -> IdempotencyRecord? {
        try await connections.write { db in
            try db.cachedStatement(sql: "DELETE FROM idempotency WHERE created_at < ?")
                .execute(arguments: [now.addingTimeInterval(-retention).millisecondsSince1970])
            try db.cachedStatement(sql: "DELETE FROM idempotency WHERE state = 'processing' AND created_at < ?")
                .execute(arguments: [now.addingTimeInterval(-lease).millisecondsSince1970])
            for key in keys {
                if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT state, response FROM idempotency WHERE hook = ? AND key = ?"),
                                              arguments: [hook, key]) {
                    let state: String = row[0]
                    return state == "completed" ? .completed(row[1] ?? "{}") : .inProgress
                }
            }
            for key in Set(keys) {
                try db.cachedStatement(sql: "INSERT INTO idempotency (hook, key, state, created_at) VALUES (?, ?, 'processing', ?)")
                    .execute(arguments: [hook, key, now.millisecondsSince1970])
            }
            return nil
        }
    }

    /// Stores the answer under every key of the request.
    public func completeIdempotencyKeys(hook: String, keys: [String], response: String) async throws {
        try await connections.write { db in
            for key in keys {
                try db.cachedStatement(sql: "UPDATE idempotency SET state = 'completed', response = ? WHERE hook = ? AND key = ?")
                    .execute(arguments: [response, hook, key])
            }
        }
    }

    /// Forgets the claims of a request that failed before doing anything, so a resend can try again.
    public func releaseIdempotencyKeys(hook: String, keys: [String]) async throws {
        try await connections.write { db in
            for key in keys {
                try db.cachedStatement(sql: "DELETE FROM idempotency WHERE hook = ? AND key = ? AND state = 'processing'")
                    .execute(arguments: [hook, key])
            }
        }
    }

    // MARK: Feedback events

    public func recordFeedback(_ events: [FeedbackEvent]) async throws {
        guard !events.isEmpty else { return }
        try await connections.write { db in try Self.insertFeedback(events, db) }
        feedbackRaised()
    }

    /// Queues feedback events in the caller's write transaction; the caller then calls
    /// ``feedbackRaised()`` once it committed.
    static func insertFeedback(_ events: [FeedbackEvent], _ db: Database) throws {
        for event in events {
            try db.cachedStatement(sql: "INSERT INTO feedback_event (type, app_id, payload, created_at) VALUES (?, ?, ?, ?)")
                .execute(arguments: [event.type.rawValue, event.appID, String(decoding: try encoder.encode(event.payload), as: UTF8.self),
                                     event.createdAt.millisecondsSince1970])
        }
    }

    // MARK: Outbox

    public func fanOutFeedback(to receivers: [String], now: Date, room: @escaping @Sendable (_ waiting: Int) -> Int,
                               decide: @escaping @Sendable (FeedbackReceiverBacklog) -> FeedbackReceiverPlan) async throws
        -> [(backlog: FeedbackReceiverBacklog, plan: FeedbackReceiverPlan?)] {
        try await connections.write { db in
            // A receiver seen for the first time starts where the single shared cursor of earlier
            // versions stood, so an upgrade sends nothing twice.
            let legacyCursor = try Int64.fetchOne(db.cachedStatement(sql: "SELECT last_event_key FROM feedback_cursor WHERE id = 1")) ?? 0
            return try receivers.map { url in
                let waiting = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM outbox WHERE url = ? AND state = 'pending'"),
                                               arguments: [url]) ?? 0
                let cursor = try Int64.fetchOne(db.cachedStatement(sql: "SELECT last_event_key FROM feedback_receiver WHERE url = ?"),
                                                arguments: [url]) ?? legacyCursor
                var backlog = FeedbackReceiverBacklog(url: url, cursor: cursor, waiting: waiting, events: [])
                let count = room(waiting)
                guard count > 0 else { return (backlog, nil) }
                backlog.events = try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT key, type, app_id, payload, created_at FROM feedback_event WHERE key > ? ORDER BY key LIMIT ?
                    """), arguments: [cursor, count]).map { row in
                    StoredFeedbackEvent(key: row[0], type: row[1], appID: row[2], payload: row[3], createdAt: row[4])
                }
                let plan = decide(backlog)
                for message in plan.messages {
                    try db.cachedStatement(sql: """
                        INSERT INTO outbox (event_key, url, type, body, next_attempt_at, state, created_at)
                        VALUES (?, ?, ?, ?, ?, 'pending', ?)
                        """).execute(arguments: [message.eventKey, url, message.type.rawValue, message.body,
                                         now.millisecondsSince1970, now.millisecondsSince1970])
                }
                try db.cachedStatement(sql: """
                    INSERT INTO feedback_receiver (url, last_event_key) VALUES (?, ?)
                    ON CONFLICT(url) DO UPDATE SET last_event_key = excluded.last_event_key
                    """).execute(arguments: [url, plan.cursor])
                return (backlog, plan)
            }
        }
    }

    public func leaseOutboxMessages(limit: Int, lease: Duration) async throws -> [OutboxMessage] {
        let now = Date().millisecondsSince1970
        return try await connections.write { db in
            var messages = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.outboxColumns) FROM outbox
                WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
                ORDER BY next_attempt_at, key LIMIT ?
                """), arguments: [now, now, limit]).map(Self.outboxMessage(from:))
            for index in messages.indices {
                let token = UUID().uuidString
                try db.cachedStatement(sql: "UPDATE outbox SET lease_until = ?, lease_token = ? WHERE key = ?")
                    .execute(arguments: [now + lease.wholeMilliseconds, token, messages[index].id])
                messages[index].leaseToken = token
            }
            return messages
        }
    }

    public func renewOutboxLease(_ id: Int64, token: String, lease: Duration) async throws -> Bool {
        let until = Date().millisecondsSince1970 + lease.wholeMilliseconds
        return try await connections.write { db in
            try db.cachedStatement(sql: "UPDATE outbox SET lease_until = ? WHERE key = ? AND lease_token = ? AND state = 'pending'")
                .execute(arguments: [until, id, token])
            return db.changesCount > 0
        }
    }

    public func nextOutboxAttempt() async throws -> Duration? {
        let now = Date().millisecondsSince1970
        return try await connections.read { db in
            try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT min(max(next_attempt_at, coalesce(lease_until, 0))) FROM outbox WHERE state = 'pending'
                """)).map { .milliseconds(max(0, $0 - now)) }
        }
    }

    public func outboxMessages(state: OutboxMessage.State?, limit: Int) async throws -> [OutboxMessage] {
        try await connections.read { db in
            if let state {
                return try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.outboxColumns) FROM outbox WHERE state = ? ORDER BY key DESC LIMIT ?"),
                                        arguments: [state.rawValue, limit]).map(Self.outboxMessage(from:))
            }
            return try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.outboxColumns) FROM outbox ORDER BY key DESC LIMIT ?"),
                                    arguments: [limit]).map(Self.outboxMessage(from:))
        }
    }

    public func markOutboxDelivered(_ id: Int64, token: String) async throws -> Bool {
        try await connections.write { db in
            try db.cachedStatement(sql: """
                UPDATE outbox SET state = 'delivered', attempts = attempts + 1, last_error = NULL, lease_until = NULL,
                    lease_token = NULL
                WHERE key = ? AND lease_token = ?
                """).execute(arguments: [id, token])
            return db.changesCount > 0
        }
    }

    public func markOutboxFailed(_ id: Int64, token: String, error: String, retryAfter: Duration,
                                 parked: Bool) async throws -> Bool {
        let next = Date().millisecondsSince1970 + retryAfter.wholeMilliseconds
        let state = parked ? OutboxMessage.State.parked : .pending
        return try await connections.write { db in
            try db.cachedStatement(sql: """
                UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, lease_until = NULL,
                    lease_token = NULL, state = ?
                WHERE key = ? AND lease_token = ?
                """).execute(arguments: [error, next, state.rawValue, id, token])
            return db.changesCount > 0
        }
    }

    /// Puts a parked message back in line. Returns false if there is no such parked message.
    public func retryOutboxMessage(_ id: Int64, now: Date) async throws -> Bool {
        try await connections.write { db in
            try db.cachedStatement(sql: """
                UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = ? WHERE key = ? AND state = 'parked'
                """).execute(arguments: [now.millisecondsSince1970, id])
            return db.changesCount > 0
        }
    }

    static let outboxColumns = "key, event_key, url, type, body, attempts, next_attempt_at, state, last_error"

    static func outboxMessage(from row: Row) -> OutboxMessage {
        OutboxMessage(id: row[0], eventID: row[1], url: row[2], type: row[3], body: row[4], attempts: row[5],
                      nextAttemptAt: Date(millisecondsSince1970: row[6]),
                      state: OutboxMessage.State(rawValue: row[7]) ?? .pending, lastError: row[8])
    }
}
