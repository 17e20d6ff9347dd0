import Foundation
import HeraldCore
import HeraldStorage
import Logging
import PostgresNIO

/// The read half of a claim: one statement, one round trip, committed by itself.
///
/// What is due is due by the database's clock, read in the same statement: a node whose clock
/// runs ahead claims nothing early, and is told (``early``) when to look again by its own clock.
/// Nothing is locked: the write takes only the rows still as read (``ClaimWrite``), so a cancel
/// committed before the write is seen, and one that comes later waits for the write's commit and
/// finds the notification gone or advanced. Rows this node's other claims have read, or found
/// taken by someone else, are not read (``ClaimedKeys``).
struct ClaimRead {
    /// The due rows: ``PostgresStore/notificationColumns``, the key, the revision (``ClaimWrite``
    /// takes the row only if it has not moved), then ``PostgresStore/deviceColumns``.
    var rows: [PostgresRandomAccessRow]
    /// Now by the database's clock, in milliseconds.
    var databaseNow: Int64
    /// The soonest instant due by the caller's `until` but not yet by the database's clock.
    var early: Int64?

    /// Where the statement's two trailing columns (the clock, the probe) start: after the due row's columns.
    static let trailer = PostgresStore.notificationColumnCount + 2 + PostgresStore.deviceColumnCount
    /// Where the due row's device columns start.
    static let deviceOffset = PostgresStore.notificationColumnCount + 2

    /// - Parameters:
    ///   - from: nothing pending is due before this instant of the caller's clock; nil: scan
    ///     from the start. The scan starts there less whatever the caller's clock runs ahead of
    ///     the database's (its timer entries for rows found early are on its own clock), so the
    ///     dead index entries below it, which vacuum may not remove while an old snapshot lives,
    ///     are not walked by every claim.
    ///   - until: due by this instant of the caller's clock (its batch window's end).
    ///   - firedAt: the caller's now; `until - firedAt` is the window, added to the database's now.
    ///   - skipping: keys not to read (``ClaimedKeys``).
    ///   - byCaller: `until` as it is, for tests that move time by hand (``PostgresStore/DueClock/caller``).
    static func run(on connection: PostgresConnection, from: Int64?, until: Int64, firedAt: Int64, limit: Int,
                    skipping: [Int64], byCaller: Bool, logger: Logger) async throws -> ClaimRead {
        let window = max(0, until - firedAt)
        // One row even when nothing is due (the LEFT JOIN), so the clock and the probe always
        // come back. The due rows are picked in the due index's order before their devices are
        // joined: joining first made PostgreSQL join and sort every due row, not just the batch.
        // (A device deleted meanwhile deletes its notifications: the write finds them gone.)
        let rows = try await connection.rows("""
            WITH bound AS MATERIALIZED (
                SELECT now, due_by, (SELECT min(next_fire_at) FROM notification
                                     WHERE next_fire_at > due_by AND next_fire_at <= \(until)::bigint) AS early,
                    coalesce(\(from)::bigint - CASE WHEN \(byCaller) THEN 0 ELSE greatest(0, \(firedAt)::bigint - now) END,
                             '-9223372036854775808'::bigint) AS due_from
                FROM (SELECT now, CASE WHEN \(byCaller) THEN \(until)::bigint ELSE least(\(until)::bigint, now + \(window)) END
                          AS due_by
                      FROM (SELECT \(unescaped: PostgresStore.databaseNow) AS now) AS clock) AS clocked
            ), due AS MATERIALIZED (
                SELECT \(unescaped: PostgresStore.notificationColumns), n.key, n.revision
                FROM notification n
                WHERE n.next_fire_at >= (SELECT due_from FROM bound) AND n.next_fire_at <= (SELECT due_by FROM bound)
                    AND NOT n.key = ANY(\(skipping)::bigint[])
                ORDER BY n.next_fire_at LIMIT \(limit)
            )
            SELECT \(unescaped: PostgresStore.notificationColumns), n.key, n.revision, \(unescaped: PostgresStore.deviceColumns),
                b.now, b.early
            FROM bound b LEFT JOIN (due n JOIN device d ON d.app_id = n.app_id AND d.id = n.device_id) ON true
            ORDER BY n.next_fire_at
            """, logger: logger)
        guard let first = rows.first else { throw ClaimReadEmpty() }
        let due = try first.value(PostgresStore.notificationColumnCount, as: Int64?.self) == nil ? [] : rows
        return ClaimRead(rows: due, databaseNow: try first.value(trailer, as: Int64.self),
                         early: try first.value(trailer + 1, as: Int64?.self))
    }
}

/// The claim's statement came back without its one row: it cannot, but a claim must not guess.
struct ClaimReadEmpty: Error {}

/// The write half of a claim: one statement, one round trip, however many rows, committed by
/// itself. It first locks the rows the claim read, those still as read (the same revision and
/// next occurrence) and not locked by anyone else (`FOR UPDATE SKIP LOCKED`), unless a write of
/// the same batch holds its gate (``gateClass``): only these are taken. Then data-modifying CTEs
/// delete the one-shots and advance the repeating notifications among them, returning what the
/// fire log copies from each (its content, its generation), so no row is looked up twice; insert
/// the fire log (the unique occurrence key refuses a second firing: only rows inserted come
/// back); hold in their inbox the firings the claim may hold; and send the arming word with
/// `pg_notify` (delivered only if the statement commits).
///
/// A firing is held here only if its device's row can be locked at once (`FOR NO KEY UPDATE
/// SKIP LOCKED`, as a wake, an acknowledgement and a hold lock it), and its hand-over id is drawn
/// after that lock: a device's ids commit in the order they were drawn
/// (docs/hand-over-order.md). Waiting for the lock is what this statement must not do: it holds
/// notification locks, and a cancel takes a device's lock before its notifications'. A device
/// whose row is busy (a wake, a schedule) gets its firing pending, and the dispatcher holds it.
struct ClaimWrite {
    /// Every row the claim read, as read (its revision and next occurrence's index: the write
    /// takes a row only if it still is), and what the claim decided for it: its next occurrence,
    /// or -1 (with 0) to remove it.
    var rows: (keys: [Int64], revisions: [Int64], indexes: [Int64], nextIndexes: [Int64], nextFireAts: [Int64])
        = ([], [], [], [], [])
    var log = FireLogBatch()
    /// `NOTIFY herald_armed` payloads (``PostgresStore/armingPayloads(node:instants:)``).
    var payloads: [String] = []

    /// Nothing read, so nothing to write (the payloads are the instants of rows it advances).
    var isEmpty: Bool { rows.keys.isEmpty }

    /// The advisory lock class of the gate: a write takes the lock of its first row's key
    /// (`pg_try_advisory_xact_lock`, held to its commit) and takes no row if another holds it.
    /// Nodes that read the same batch at once (each wakes for every instant) would otherwise
    /// split its rows and its devices' locks between them, leaving firings to the dispatchers;
    /// this way one takes the batch and the others look again a moment later (``ClaimedKeys``).
    static let gateClass: Int32 = 0x6863_6c6d // "hclm"

    /// Adds a row read at `revision` with next occurrence `index`, to advance to `next` or, without
    /// one, to remove.
    mutating func decide(_ key: Int64, revision: Int64, index: Int64, next: ClaimStep.Next?) {
        rows.keys.append(key)
        rows.revisions.append(revision)
        rows.indexes.append(index)
        rows.nextIndexes.append(next.map { Int64($0.index) } ?? -1)
        rows.nextFireAts.append(next?.entry.fireAt ?? 0)
    }

    /// What the statement logged for one notification.
    struct Logged {
        /// The firing's fire-log key.
        var logID: Int64
        /// Its hand-over id when the claim held it in its device's inbox.
        var inboxSequence: Int64?
    }

    /// What the statement did.
    struct Written {
        /// What was logged for each notification whose firing was logged.
        var logged: [Int64: Logged] = [:]
        /// The notifications taken: still as read, and not locked by anyone else.
        var taken: Set<Int64> = []
    }

    /// Runs the statement.
    func run(on connection: PostgresConnection, firedAt: Int64, node: String, logger: Logger) async throws -> Written {
        let rows = try await connection.rows("""
            WITH gate AS MATERIALIZED (
                SELECT pg_try_advisory_xact_lock(\(Self.gateClass), \(Int32(truncatingIfNeeded: rows.keys.first ?? 0))) AS open
            ), taken AS MATERIALIZED (
                SELECT n.key, r.x AS next_index, r.f AS next_fire_at FROM notification n
                    JOIN unnest(\(rows.keys)::bigint[], \(rows.revisions)::bigint[], \(rows.indexes)::bigint[],
                        \(rows.nextIndexes)::bigint[], \(rows.nextFireAts)::bigint[]) AS r(k, v, i, x, f)
                    ON n.key = r.k
                WHERE (SELECT open FROM gate) AND n.key = ANY(\(rows.keys)::bigint[]) AND n.revision = r.v
                    AND n.next_index = r.i
                FOR UPDATE OF n SKIP LOCKED
            ), removed AS (
                DELETE FROM notification n USING taken t WHERE n.key = t.key AND t.next_index < 0
                RETURNING n.key, n.app_id, n.device_id, n.id, n.content, n.generation
            ), advanced AS (
                UPDATE notification AS n SET next_index = t.next_index, next_fire_at = t.next_fire_at
                FROM taken t WHERE n.key = t.key AND t.next_index >= 0
                RETURNING n.key, n.app_id, n.device_id, n.id, n.content, n.generation
            ), claimed AS (
                SELECT * FROM removed UNION ALL SELECT * FROM advanced
            ), locked AS MATERIALIZED (
                SELECT d.app_id, d.id FROM device d
                WHERE (d.app_id, d.id) IN (SELECT c.app_id, c.device_id FROM claimed c
                                           WHERE c.key = ANY(\(log.holdableKeys)::bigint[]))
                ORDER BY d.app_id, d.id
                FOR NO KEY UPDATE SKIP LOCKED
            ), firing AS (
                SELECT u.o, n.app_id AS a, n.device_id AS d, n.id AS i, u.s, u.l, u.m, n.content AS c, u.k,
                    n.generation AS g, u.x, u.r,
                    u.h AND locked.id IS NOT NULL AS held
                FROM unnest(\(log.occurrenceIDs)::text[], \(log.scheduledFor)::bigint[], \(log.late)::boolean[],
                    \(log.missed)::bigint[], \(log.notificationKeys)::bigint[], \(log.indexes)::bigint[],
                    \(log.holdable)::boolean[]) WITH ORDINALITY AS u(o, s, l, m, k, x, h, r)
                    JOIN claimed n ON n.key = u.k
                    LEFT JOIN locked ON locked.app_id = n.app_id AND locked.id = n.device_id
            ), logged AS (
                INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at,
                    late, missed, channel, outcome, content, notification_key, generation, occurrence_index, claimed_by,
                    inbox_seq)
                SELECT o, a, d, i, s, greatest(\(firedAt), s), l, m,
                    CASE WHEN held THEN \(CompletedDelivery.heldChannel) ELSE 'pending' END,
                    CASE WHEN held THEN \(CompletedDelivery.heldOutcome) ELSE 'pending' END,
                    c, k, g, x, \(node), CASE WHEN held THEN nextval('hand_over_sequence') END
                FROM (SELECT * FROM firing ORDER BY r) AS ordered
                ON CONFLICT DO NOTHING
                RETURNING key, notification_key, inbox_seq
            ), notified AS MATERIALIZED (
                SELECT pg_notify(\(PostgresStore.armingChannel), p) FROM unnest(\(payloads)::text[]) AS p
            )
            SELECT key, notification_key, inbox_seq FROM logged
            UNION ALL
            SELECT NULL::bigint, key, NULL::bigint FROM taken
            UNION ALL
            SELECT NULL::bigint, NULL::bigint, NULL::bigint FROM notified
            """, logger: logger)
        var written = Written()
        written.logged.reserveCapacity(rows.count / 2)
        for row in rows {
            guard let notificationKey = try row.value(1, as: Int64?.self) else { continue }
            if let key = try row.value(0, as: Int64?.self) {
                written.logged[notificationKey] = Logged(logID: key, inboxSequence: try row.value(2, as: Int64?.self))
            } else {
                written.taken.insert(notificationKey)
            }
        }
        return written
    }
}
