import Foundation
import GRDB
import HeraldCore

/// ``ScheduleStore`` in SQLite: the snapshot is read, decided on and the plan written in one
/// write transaction (SQLite has one writer, so nothing commits in between), committed with the
/// other schedules that arrive together (``SQLiteGroupCommit``).
extension SQLiteStore {
    public func scheduleSnapshot(appID: String, deviceID: String) async throws -> ScheduleSnapshot {
        try await connections.read { db in try Self.scheduleSnapshot(db, appID: appID, deviceID: deviceID) }
    }

    public func schedule(appID: String, deviceID: String,
                         decide: @escaping @Sendable (ScheduleSnapshot) throws -> SchedulePlan) async throws -> ScheduleWrite {
        let written = try await notificationWrites.write { db -> ScheduleWrite in
            let snapshot = try Self.scheduleSnapshot(db, appID: appID, deviceID: deviceID)
            let plan = try decide(snapshot)
            return ScheduleWrite(snapshot: snapshot, plan: plan, armed: try Self.apply(plan, db))
        }
        if !written.plan.feedback.isEmpty { feedbackRaised() }
        return written
    }

    /// Two statements: the app with the device and its pending version (the device's columns NULL
    /// when the app has no such device), then the pending notifications, read from a cursor
    /// (rows are not copied: this runs on the writer's time).
    static func scheduleSnapshot(_ db: Database, appID: String, deviceID: String) throws -> ScheduleSnapshot {
        let appAndDevice = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT \(appColumnsAliased), \(deviceColumnsAliased), d.pending_version
            FROM app a LEFT JOIN device d ON d.app_id = a.id AND d.id = ?
            WHERE a.id = ?
            """), arguments: [deviceID, appID])
        guard let row = try appAndDevice.next() else { throw HeraldError.appNotFound(appID) }
        guard !row.hasNull(atIndex: appColumnCount) else {
            throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        }
        let app = try app(from: row)
        let device = try device(from: row, offset: appColumnCount)
        let version: Int64 = row[appColumnCount + deviceColumnCount]
        var pending: [NotificationLimit.Pending] = []
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT id, next_fire_at, key FROM notification WHERE app_id = ? AND device_id = ?
            """), arguments: [appID, deviceID])
        while let row = try rows.next() {
            pending.append(NotificationLimit.Pending(id: row[0], nextFireDate: Date(millisecondsSince1970: row[1]),
                                                     sequence: row[2]))
        }
        return ScheduleSnapshot(app: app, device: device, pending: pending, version: version)
    }

    /// Writes a plan decided in this transaction; returns the stored notification's timer entry.
    static func apply(_ plan: SchedulePlan, _ db: Database) throws -> TimerEntry? {
        try db.cachedStatement(sql: "UPDATE device SET pending_version = pending_version + 1 WHERE app_id = ? AND id = ?")
            .execute(arguments: [plan.appID, plan.deviceID])
        for id in plan.evict {
            try db.cachedStatement(sql: "DELETE FROM notification WHERE app_id = ? AND device_id = ? AND id = ?")
                .execute(arguments: [plan.appID, plan.deviceID, id])
        }
        try insertFeedback(plan.feedback, db)
        guard let notification = plan.store else { return nil }
        let content = String(decoding: try encoder.encode(notification.content), as: UTF8.self)
        let nextFireAt = notification.nextFireDate.millisecondsSince1970
        let key = try Int64.fetchOne(db.cachedStatement(sql: """
            INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, repeat_unit, repeat_every,
                repeat_count, repeat_until, content, next_index, next_fire_at, revision, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
            ON CONFLICT(app_id, device_id, id) DO UPDATE SET fire_date = excluded.fire_date,
                time_zone = excluded.time_zone, repeat_unit = excluded.repeat_unit,
                repeat_every = excluded.repeat_every, repeat_count = excluded.repeat_count,
                repeat_until = excluded.repeat_until, content = excluded.content,
                next_index = excluded.next_index, next_fire_at = excluded.next_fire_at,
                revision = notification.revision + 1, generation = notification.generation + 1,
                created_at = excluded.created_at
            RETURNING key
            """), arguments: StatementArguments([notification.appID, notification.deviceID, notification.id]
                                + scheduleArguments(notification)
                                + [content, notification.nextIndex, nextFireAt, plan.now.millisecondsSince1970]))!
        return TimerEntry(fireAt: nextFireAt, key: key)
    }
}
