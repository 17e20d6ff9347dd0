import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// Firing across nodes: due notifications claimed with `FOR UPDATE SKIP LOCKED`, so nodes
/// claiming at the same instant take disjoint rows; each firing leased to the node that claimed
/// it until its outcome is stored, and every outcome write fenced by that lease.
extension PostgresStore {
    public func timerEntries() async throws -> [TimerEntry] {
        try await read { connection in
            var entries: [TimerEntry] = []
            for try await (fireAt, key) in try await connection.query("SELECT next_fire_at, key FROM notification",
                                                                      logger: self.logger).decode((Int64, Int64).self) {
                entries.append(TimerEntry(fireAt: fireAt, key: key))
            }
            return entries
        }
    }

    /// Two: a second claim reads and decides while the first writes (``ClaimTurns``).
    public var concurrentClaims: Int { 2 }

    /// Claims what is due in two statements, whatever the batch's size, each committed by itself
    /// (no round trip for `BEGIN` or `COMMIT`): one read (the database's clock, the due rows, and
    /// the soonest row due by this node's clock but not yet by the database's), then, once
    /// `decide` has chosen each row's next occurrence, one write that takes the rows still as
    /// read (the fire log, the firings `holding` says can only end in an inbox held there, the
    /// notifications advanced or removed, and the word to other nodes). See ``ClaimRead`` and
    /// ``ClaimWrite``: the write holds a firing only under its device's lock, taken without
    /// waiting, so hand-over ids keep commit order.
    ///
    /// A row the write could not take (another node's claim, or a cancel or replace, holds or
    /// changed it) is theirs to fire or arm; this node skips it for a moment (``ClaimedKeys``)
    /// and looks again then. A claim that could take less than half of what it read leaves the
    /// backlog to the node that took the rest: it says it needs no claim to follow it.
    public func claimDue(from: Date?, until: Date, firedAt: Date, limit: Int, holding: InboxOnlyRule?,
                         decide: @escaping @Sendable (DueNotification) -> FiringDecision) async throws -> FiringClaim {
        let untilMilliseconds = until.millisecondsSince1970
        let firedAtMilliseconds = firedAt.millisecondsSince1970
        let fromMilliseconds = from?.millisecondsSince1970
        let readTurn = claimReads.turn()
        defer { readTurn.giveBack() }
        await readTurn.take()
        let read = try await statement { connection in
            try await ClaimRead.run(on: connection, from: fromMilliseconds, until: untilMilliseconds, firedAt: firedAtMilliseconds,
                                    limit: limit, skipping: self.claimedKeys.skipped(), byCaller: self.dueClock == .caller,
                                    logger: self.logger)
        }
        let keys = try read.rows.map { try $0.value(Self.notificationColumnCount, as: Int64.self) }
        claimedKeys.reading(keys)
        readTurn.giveBack()
        var contested: [Int64] = []
        defer { claimedKeys.finished(keys, contested: contested) }

        var candidates: [Int64: FiredOccurrence] = [:]
        candidates.reserveCapacity(read.rows.count)
        var claim = FiringClaim(fired: [], armed: [], more: read.rows.count == limit)
        if let early = read.early {
            // Due by this node's clock, not yet by the database's: look again when it is.
            claim.armed.append(TimerEntry(fireAt: early + (firedAtMilliseconds - read.databaseNow), key: -1))
        }
        var armed: [Int64: TimerEntry] = [:]
        var write = ClaimWrite()
        var devices = DecodedDevices()
        for (row, key) in zip(read.rows, keys) {
            let device = try devices.device(appID: try row.value(0), deviceID: try row.value(1)) {
                try Self.device(from: row, offset: ClaimRead.deviceOffset)
            }
            let due = DueNotification(key: key, notificationID: try row.value(2), schedule: try Self.schedule(from: row),
                                      nextIndex: try row.value(11),
                                      nextFireDate: Date(millisecondsSince1970: try row.value(12)), device: device)
            let step = ClaimStep(decide(due), for: due)
            if let occurrence = step.firing {
                // The stored text as it is: the log keeps exactly what was scheduled.
                let content = try row.value(10, as: String.self)
                let holdable = holding?.holdsInClaim(occurrence, device: device, storedContent: content,
                                                     firedAt: firedAt) == true
                write.log.append(occurrence, notificationKey: key, holdable: holdable)
                // Fired at its instant when claimed early: the engine holds it until then.
                candidates[key] = FiredOccurrence(occurrence: occurrence, contentJSON: content, device: device,
                                                  firedAt: max(firedAt, occurrence.scheduledFor))
            }
            write.decide(key, revision: try row.value(Self.notificationColumnCount + 1), index: try row.value(11),
                         next: step.next)
            if let next = step.next { armed[key] = next.entry }
        }
        // Word to the other nodes, sent only if this commits: the instant is all a node needs,
        // its claim reads what is due from the table.
        write.payloads = Self.armingPayloads(node: nodeID, instants: Set(armed.values.map(\.fireAt)).sorted())
        guard !write.isEmpty else { return claim }
        let writeTurn = claimWrites.turn()
        defer { writeTurn.giveBack() }
        let written = try await statement { [write] connection in
            await writeTurn.take()
            return try await write.run(on: connection, firedAt: firedAtMilliseconds, node: self.nodeID, logger: self.logger)
        }
        for key in keys {
            guard written.taken.contains(key) else {
                contested.append(key)
                continue
            }
            if let entry = armed[key] { claim.armed.append(entry) }
        }
        if !contested.isEmpty {
            // Skipped for a moment: look again once they are read again.
            claim.armed.append(TimerEntry(fireAt: firedAtMilliseconds + ClaimedKeys.contestedMilliseconds, key: -1))
            // Most of them taken: another node is claiming this backlog. Let it go on rather than
            // race it batch for batch (each read and decided twice, written once).
            if contested.count * 2 > keys.count { claim.more = false }
        }
        for key in write.log.notificationKeys {
            guard let entry = written.logged[key], var fired = candidates[key] else { continue }
            fired.logID = entry.logID
            if entry.inboxSequence == nil {
                claim.fired.append(fired)
            } else {
                claim.heldInInbox.append(fired)
            }
        }
        return claim
    }

    /// On start-up: firings without an outcome that this node held before it restarted, or whose
    /// node's lease ran out, now leased to this node.
    public func unfinishedFirings() async throws -> (fired: [FiredOccurrence], orphaned: [Int64]) {
        try await takeOverFirings(includingOwn: true)
    }

    /// Firings without an outcome whose node stopped renewing its lease (it died or stalled),
    /// now leased to this node; and this node's own firings pending for longer than a lease (a
    /// claim whose commit succeeded but whose reply was lost, so the timer never handed it to
    /// the dispatcher; the dispatcher skips those it already holds). A node calls this on every
    /// heartbeat, so nothing stays pending without a live claim for more than about two leases.
    public func takeOverExpiredFirings() async throws -> (fired: [FiredOccurrence], orphaned: [Int64]) {
        try await takeOverFirings(includingOwn: false)
    }

    private func takeOverFirings(includingOwn: Bool) async throws -> (fired: [FiredOccurrence], orphaned: [Int64]) {
        let own = includingOwn ? nodeID : ""
        // A firing's lease is its node's heartbeat: one row per node to renew, not one per firing.
        // Rows another node is taking over right now are locked, and skipped.
        let rows = try await transaction { connection in
            try await connection.run("""
                UPDATE node SET heartbeat_at = greatest(heartbeat_at, \(unescaped: Self.databaseNow)) WHERE id = \(self.nodeID)
                """, logger: self.logger)
            return try await connection.rows("""
                WITH candidates AS (
                    SELECT key FROM delivery
                    WHERE outcome = 'pending' AND (claimed_by = \(own) OR claimed_by IS NULL
                        OR (claimed_by = \(self.nodeID) AND fired_at < \(unescaped: Self.databaseNow) - \(self.leaseMilliseconds))
                        OR claimed_by NOT IN (SELECT id FROM node WHERE heartbeat_at >= \(unescaped: Self.databaseNow) - \(self.leaseMilliseconds)))
                    ORDER BY key LIMIT \(Self.takeOverBatch)
                    FOR UPDATE SKIP LOCKED
                ), taken AS (
                    -- Counted as handed over only when it changes hands (or at a restart).
                    UPDATE delivery l SET claimed_by = \(self.nodeID),
                        handovers = handovers + CASE WHEN l.claimed_by = \(self.nodeID) AND \(!includingOwn) THEN 0 ELSE 1 END
                    FROM candidates c WHERE l.key = c.key
                    RETURNING l.key, l.occurrence_id, l.app_id, l.device_id, l.notification_id, l.scheduled_for,
                        l.fired_at, l.late, l.missed, l.occurrence_index, l.content
                )
                SELECT t.key, t.occurrence_id, t.app_id, t.device_id, t.notification_id, t.scheduled_for, t.fired_at,
                    t.late, t.missed, t.occurrence_index, t.content, \(unescaped: Self.deviceColumns)
                FROM taken t LEFT JOIN device d ON d.app_id = t.app_id AND d.id = t.device_id
                ORDER BY t.key
                """, logger: self.logger)
        }
        var fired: [FiredOccurrence] = []
        var orphaned: [Int64] = []
        for row in rows {
            let logID = try row.value(0, as: Int64.self)
            guard let content = try row.value(10, as: String?.self), try row.value(12, as: String?.self) != nil else {
                orphaned.append(logID)
                continue
            }
            let occurrenceID = try row.value(1, as: String.self)
            let index = try row.value(9, as: Int?.self) ?? Occurrence.index(fromID: occurrenceID)
            let occurrence = Occurrence(appID: try row.value(2), deviceID: try row.value(3), notificationID: try row.value(4),
                                        index: index, scheduledFor: Date(millisecondsSince1970: try row.value(5)),
                                        late: try row.value(7), missed: try row.value(8))
            fired.append(FiredOccurrence(logID: logID, occurrence: occurrence, contentJSON: content,
                                         device: try Self.device(from: row, offset: 11),
                                         firedAt: Date(millisecondsSince1970: try row.value(6))))
        }
        return (fired, orphaned)
    }

    /// Most firings one take-over moves; the next heartbeat takes the rest.
    static let takeOverBatch = 5_000

    /// Stores outcomes, fenced: only for firings this node still holds. A node that stalled past
    /// its lease finds its firings taken over, and its late outcome is refused, not written
    /// over the outcome of the node that took them. `claimed_by` stays, naming the node that
    /// delivered.
    public func completeDeliveries(_ outcomes: [CompletedDelivery]) async throws {
        guard !outcomes.isEmpty else { return }
        let keys = outcomes.map(\.deliveryID)
        let channels = outcomes.map(\.channel.rawValue)
        let results = outcomes.map(\.outcome.rawValue)
        // Arrays cannot hold NULLs here: -1 and "" stand for none.
        let statuses = outcomes.map { Int64($0.apnsStatus ?? -1) }
        let apnsIDs = outcomes.map { $0.apnsID ?? "" }
        // One statement: atomic without BEGIN and COMMIT around it. The keys twice: `= ANY`
        // lets PostgreSQL find the rows by primary key; the join alone, on a fire log without
        // statistics yet (a fresh one, or mid-burst), planned a scan of the whole log per batch.
        // A row that already holds its outcome (written when its item was held) is not written
        // again, but counts as stored.
        let written = try await statement { connection in
            try await connection.row("""
                WITH outcome AS (
                    SELECT l.key, u.c, u.o, nullif(u.s, -1) AS s, nullif(u.a, '') AS a,
                        (l.channel, l.outcome, l.apns_status, l.apns_id) IS DISTINCT FROM (u.c, u.o, nullif(u.s, -1), nullif(u.a, ''))
                            AS changed
                    FROM delivery l JOIN unnest(\(keys)::bigint[], \(channels)::text[], \(results)::text[],
                        \(statuses)::bigint[], \(apnsIDs)::text[]) AS u(k, c, o, s, a) ON l.key = u.k
                    WHERE l.key = ANY(\(keys)::bigint[]) AND l.claimed_by = \(self.nodeID)
                ), stored AS (
                    UPDATE delivery AS l SET channel = outcome.c, outcome = outcome.o, apns_status = outcome.s,
                        apns_id = outcome.a
                    FROM outcome
                    WHERE l.key = ANY(\(keys)::bigint[]) AND l.key = outcome.key AND outcome.changed
                        AND l.claimed_by = \(self.nodeID)
                )
                SELECT count(*) FROM outcome
                """, logger: self.logger)?.value(0, as: Int64.self) ?? 0
        }
        if written < Int64(outcomes.count) {
            logger.warning("outcomes refused: another node took these firings over after this node's lease ran out",
                           metadata: ["refused": "\(Int64(outcomes.count) - written)", "node": "\(self.nodeID)"])
        }
    }

    /// Renews this node's heartbeat, which is the lease on every firing it holds.
    public func renewLeases() async throws {
        try await heartbeat()
    }

    /// The soonest pending instant: the sweep arms it, covering any word of a write that was lost.
    public func earliestPendingFire() async throws -> Int64? {
        try await read { connection in
            try await connection.row("SELECT min(next_fire_at) FROM notification", logger: self.logger)?.value(0, as: Int64?.self)
        }
    }
}

/// One claim's fire-log rows, as columns to insert with one `unnest`: what the claim decided.
/// What the notification's row holds (its app, device, id, generation and content) the write
/// takes from that row, which it has locked and found as the claim read it, instead of sending
/// it back.
struct FireLogBatch {
    var occurrenceIDs: [String] = []
    var scheduledFor: [Int64] = []
    var late: [Bool] = []
    var missed: [Int64] = []
    var notificationKeys: [Int64] = []
    var indexes: [Int64] = []
    /// Whether the claim may hold the firing in its device's inbox (``InboxOnlyRule``), if it
    /// can lock the device (``ClaimWrite``).
    var holdable: [Bool] = []

    /// The notifications whose firing the claim may hold.
    var holdableKeys: [Int64] { zip(notificationKeys, holdable).filter(\.1).map(\.0) }

    var isEmpty: Bool { occurrenceIDs.isEmpty }

    mutating func append(_ occurrence: Occurrence, notificationKey: Int64, holdable: Bool) {
        occurrenceIDs.append(occurrence.id)
        scheduledFor.append(occurrence.scheduledFor.millisecondsSince1970)
        late.append(occurrence.late)
        missed.append(Int64(occurrence.missed))
        notificationKeys.append(notificationKey)
        indexes.append(Int64(occurrence.index))
        self.holdable.append(holdable)
    }
}
