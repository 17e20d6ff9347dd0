import Foundation
import GRDB
import HeraldCore

/// Firing: due notifications claimed and their firings committed to the fire log in one write
/// transaction, then the log read back only by recovery.
extension SQLiteStore {
    public func claimDue(until: Date, firedAt: Date, limit: Int,
                         decide: @escaping @Sendable (DueNotification) -> FiringDecision) async throws -> FiringClaim {
        let untilMilliseconds = until.millisecondsSince1970
        return try await pool.write { db in
            // The read and every write below are one transaction: a cancel or replace committed
            // before it is seen here, one committed after it finds the notification advanced.
            // CROSS JOIN keeps notifications the outer loop, so the scan walks notification_due
            // in instant order and stops at the limit instead of sorting everything due.
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(Self.notificationColumns), n.key, n.generation, \(Self.deviceColumnsAliased)
                FROM notification n CROSS JOIN device d ON d.app_id = n.app_id AND d.id = n.device_id
                WHERE n.next_fire_at <= ? ORDER BY n.next_fire_at LIMIT ?
                """, arguments: [untilMilliseconds, limit])
            let advance = try db.cachedStatement(sql: "UPDATE notification SET next_index = ?, next_fire_at = ? WHERE key = ?")
            let remove = try db.cachedStatement(sql: "DELETE FROM notification WHERE key = ?")
            let log = try db.cachedStatement(sql: """
                INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                    missed, channel, outcome, content, notification_key, generation, occurrence_index)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 'pending', ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """)
            var claim = FiringClaim(fired: [], armed: [], more: rows.count == limit)
            for row in rows {
                let key: Int64 = row[Self.notificationColumnCount]
                let generation: Int64 = row[Self.notificationColumnCount + 1]
                let device = try Self.device(from: row, offset: Self.notificationColumnCount + 2)
                let due = DueNotification(key: key, notificationID: row[2], schedule: try Self.schedule(from: row),
                                          nextIndex: row[10], nextFireDate: Date(millisecondsSince1970: row[11]),
                                          device: device)
                let step = ClaimStep(decide(due), for: due)
                if let occurrence = step.firing {
                    // The stored text as it is, not decoded here: the log keeps exactly what was
                    // scheduled, and whoever delivers it decodes it, off the writer.
                    let content: String = row[9]
                    try log.execute(arguments: [
                        occurrence.id, occurrence.appID, occurrence.deviceID, occurrence.notificationID,
                        occurrence.scheduledFor.millisecondsSince1970, firedAt.millisecondsSince1970, occurrence.late,
                        occurrence.missed, content, key, generation, occurrence.index,
                    ])
                    // The unique occurrence refused a second firing: nothing to hand over again.
                    if db.changesCount > 0 {
                        claim.fired.append(FiredOccurrence(logID: db.lastInsertedRowID, occurrence: occurrence,
                                                           contentJSON: content, device: device, firedAt: firedAt))
                    }
                }
                if let next = step.next {
                    try advance.execute(arguments: [next.index, next.entry.fireAt, key])
                    claim.armed.append(next.entry)
                } else {
                    try remove.execute(arguments: [key])
                }
            }
            return claim
        }
    }

    public func unfinishedFirings() async throws -> (fired: [FiredOccurrence], orphaned: [Int64]) {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT l.key, l.occurrence_id, l.app_id, l.device_id, l.notification_id, l.scheduled_for, l.fired_at,
                    l.late, l.missed, l.occurrence_index,
                    coalesce(l.content, (SELECT n.content FROM notification n WHERE n.app_id = l.app_id
                        AND n.device_id = l.device_id AND n.id = l.notification_id)),
                    \(Self.deviceColumnsAliased)
                FROM delivery l LEFT JOIN device d ON d.app_id = l.app_id AND d.id = l.device_id
                WHERE l.outcome = 'pending' ORDER BY l.key
                """)
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
