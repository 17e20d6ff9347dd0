import Foundation
import GRDB
import HeraldCore

/// Firing: due notifications claimed and their firings committed to the fire log in one write
/// transaction, then the log read back only by recovery.
extension SQLiteStore {
    public func claimDue(from: Date?, until: Date, firedAt: Date, limit: Int, holding: InboxOnlyRule?,
                         decide: @escaping @Sendable (DueNotification) -> FiringDecision) async throws -> FiringClaim {
        // `from` is not needed here: SQLite removes a deleted row's index entries at once, so the
        // due index holds no dead entries to skip.
        let untilMilliseconds = until.millisecondsSince1970
        return try await connections.write { db in
            // The read and every write below are one transaction: a cancel or replace committed
            // before it is seen here, one committed after it finds the notification advanced.
            // CROSS JOIN keeps notifications the outer loop, so the scan walks notification_due
            // in instant order and stops at the limit instead of sorting everything due.
            // Read through a cursor: each row is decoded where SQLite holds it, not copied first.
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT \(Self.notificationColumns), n.key, n.generation, \(Self.deviceColumnsAliased)
                FROM notification n CROSS JOIN device d ON d.app_id = n.app_id AND d.id = n.device_id
                WHERE n.next_fire_at <= ? ORDER BY n.next_fire_at LIMIT ?
                """), arguments: [untilMilliseconds, limit])
            var claim = FiringClaim(fired: [], armed: [], more: false)
            var read = 0
            var log: [[DatabaseValue]] = []
            var candidates: [Int64: (fired: FiredOccurrence, held: Bool)] = [:]
            // Rows of `log` the claim holds in their inbox itself; their hand-over ids are
            // reserved once the count is known.
            var heldRows: [Int] = []
            var advanced: [[DatabaseValue]] = []
            var removed: [[DatabaseValue]] = []
            var devices = DecodedDevices()
            while let row = try rows.next() {
                read += 1
                let key: Int64 = row[Self.notificationColumnCount]
                let generation: Int64 = row[Self.notificationColumnCount + 1]
                let device = try devices.device(appID: row[0], deviceID: row[1]) {
                    try Self.device(from: row, offset: Self.notificationColumnCount + 2)
                }
                let due = DueNotification(key: key, notificationID: row[2], schedule: try Self.schedule(from: row),
                                          nextIndex: row[10], nextFireDate: Date(millisecondsSince1970: row[11]),
                                          device: device)
                let step = ClaimStep(decide(due), for: due)
                if let occurrence = step.firing {
                    // The stored text as it is, not decoded here: the log keeps exactly what was
                    // scheduled, and whoever delivers it decodes it, off the writer. Fired at its
                    // instant when claimed early: the engine holds it until then.
                    let content: String = row[9]
                    let handedOverAt = max(firedAt, occurrence.scheduledFor)
                    let held = holding?.holdsInClaim(occurrence, device: device, storedContent: content,
                                                     firedAt: firedAt) == true
                    if held { heldRows.append(log.count) }
                    log.append([
                        occurrence.id.databaseValue, occurrence.appID.databaseValue, occurrence.deviceID.databaseValue,
                        occurrence.notificationID.databaseValue, occurrence.scheduledFor.millisecondsSince1970.databaseValue,
                        handedOverAt.millisecondsSince1970.databaseValue, occurrence.late.databaseValue,
                        occurrence.missed.databaseValue, content.databaseValue, key.databaseValue,
                        generation.databaseValue, occurrence.index.databaseValue,
                        held ? Self.heldChannel : Self.pendingChannel, held ? Self.heldOutcome : Self.pendingOutcome,
                        .null,
                    ])
                    candidates[key] = (FiredOccurrence(occurrence: occurrence, contentJSON: content, device: device,
                                                       firedAt: handedOverAt), held)
                }
                if let next = step.next {
                    advanced.append([key.databaseValue, next.index.databaseValue, next.entry.fireAt.databaseValue])
                    claim.armed.append(next.entry)
                } else {
                    removed.append([key.databaseValue])
                }
            }
            claim.more = read == limit
            // Ids in claim order, from the series every hand-over shares. A firing the log
            // refuses (fired before) leaves a gap, which no device's cursor minds.
            var sequence = try Self.reserveHandOverSequences(heldRows.count, db)
            for row in heldRows {
                log[row][Self.fireLogInboxColumn] = sequence.databaseValue
                sequence += 1
            }
            // The unique occurrence refuses a second firing: only rows inserted come back, and
            // only those are handed over.
            try Self.fireLogInsert.execute(log, in: db) { row in
                let notificationKey: Int64 = row[1]
                guard var candidate = candidates.removeValue(forKey: notificationKey) else { return }
                candidate.fired.logID = row[0]
                if candidate.held {
                    claim.heldInInbox.append(candidate.fired)
                } else {
                    claim.fired.append(candidate.fired)
                }
            }
            claim.fired.sort { ($0.logID ?? 0) < ($1.logID ?? 0) }
            try Self.notificationAdvance.execute(advanced, in: db)
            try Self.notificationRemoval.execute(removed, in: db)
            return claim
        }
    }

    /// A claim's fire-log rows: pending until the dispatcher stores their outcomes, or held in
    /// their inbox already (channel, outcome and hand-over id set).
    static let fireLogInsert = SQLiteMultiRow(sql: { values in
        """
        INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late, missed,
            content, notification_key, generation, occurrence_index, channel, outcome, inbox_seq)
        SELECT * FROM (VALUES \(values))
        WHERE true
        ON CONFLICT DO NOTHING
        RETURNING key, notification_key
        """
    }, columns: 15)

    /// Where `fireLogInsert` takes a row's hand-over id.
    static let fireLogInboxColumn = 14
    /// A fire-log row's channel and outcome as the claim writes them: pending for the dispatcher,
    /// or held when the claim holds the firing itself.
    static let pendingChannel = "pending".databaseValue, pendingOutcome = "pending".databaseValue
    static let heldChannel = CompletedDelivery.heldChannel.databaseValue
    static let heldOutcome = CompletedDelivery.heldOutcome.databaseValue

    /// Repeating notifications moved on to their next occurrence: (key, index, instant) rows.
    static let notificationAdvance = SQLiteMultiRow(sql: { values in
        """
        UPDATE notification SET next_index = v.column2, next_fire_at = v.column3
        FROM (VALUES \(values)) AS v WHERE notification.key = v.column1
        """
    }, columns: 3)

    /// One-shots (and repeating ones that ended) removed.
    static let notificationRemoval = SQLiteMultiRow(sql: { values in
        "DELETE FROM notification WHERE key IN (VALUES \(values))"
    }, columns: 1)

    public func unfinishedFirings() async throws -> (fired: [FiredOccurrence], orphaned: [Int64]) {
        try await connections.read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT l.key, l.occurrence_id, l.app_id, l.device_id, l.notification_id, l.scheduled_for, l.fired_at,
                    l.late, l.missed, l.occurrence_index,
                    coalesce(l.content, (SELECT n.content FROM notification n WHERE n.app_id = l.app_id
                        AND n.device_id = l.device_id AND n.id = l.notification_id)),
                    \(Self.deviceColumnsAliased)
                FROM delivery l LEFT JOIN device d ON d.app_id = l.app_id AND d.id = l.device_id
                WHERE l.outcome = 'pending' ORDER BY l.key
                """))
            var fired: [FiredOccurrence] = []
            var orphaned: [Int64] = []
            for row in rows {
                let logID: Int64 = row[0]
                let contentText: String? = row[10]
                let deviceID: String? = row[11]
                guard let contentText, deviceID != nil else {
                    orphaned.append(logID)
                    continue
                }
                let occurrenceID: String = row[1]
                let index: Int? = row[9]
                let occurrence = Occurrence(appID: row[2], deviceID: row[3], notificationID: row[4],
                                            index: index ?? Occurrence.index(fromID: occurrenceID),
                                            scheduledFor: Date(millisecondsSince1970: row[5]), late: row[7], missed: row[8])
                fired.append(FiredOccurrence(logID: logID, occurrence: occurrence, contentJSON: contentText,
                                             device: try Self.device(from: row, offset: 11),
                                             firedAt: Date(millisecondsSince1970: row[6])))
            }
            return (fired, orphaned)
        }
    }
}
