import Foundation
import GRDB
import HeraldCore

extension SQLiteStore {
    public func probe() async throws {
        _ = try await connections.read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT 1")) }
    }

    public func storeGauges() async throws -> StoreGauges {
        try await connections.read { db in
            var gauges = StoreGauges()
            gauges.pendingNotifications = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM notification")) ?? 0
            gauges.fireLogBacklog = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM delivery WHERE outcome = 'pending'")) ?? 0
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT state, count(*) FROM outbox WHERE state != 'delivered' GROUP BY state")) {
                let (state, count): (String, Int) = (row[0], row[1])
                if state == OutboxMessage.State.parked.rawValue { gauges.outboxParked = count } else { gauges.outboxPending += count }
            }
            return gauges
        }
    }

    public func eventBacklogByKind() async throws -> [String: Int] {
        try await connections.read { db in
            var counts: [String: Int] = [:]
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT queue, unacknowledged, handed_seq FROM device_events"))
            while let row = try rows.next() {
                let backlog = try AcknowledgedBacklog(storedQueue: row[0], unacknowledged: row[1], handedSequence: row[2])
                counts.merge(backlog.pendingByKind, uniquingKeysWith: +)
            }
            return counts
        }
    }

    public func appStatuses() async throws -> [AppStatus] {
        try await connections.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT a.id,
                    (SELECT count(*) FROM device d WHERE d.app_id = a.id AND d.broadcast_channel IS NULL),
                    (SELECT count(*) FROM notification n WHERE n.app_id = a.id),
                    (SELECT count(*) FROM invalid_token t WHERE t.app_id = a.id)
                FROM app a ORDER BY a.id
                """)).map { AppStatus(appID: $0[0], devices: $0[1], pendingNotifications: $0[2], invalidTokens: $0[3]) }
        }
    }

    public func deviceStatuses(appID: String, limit: Int) async throws -> [DeviceStatus] {
        try await connections.read { db in
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM app WHERE id = ?"),
                arguments: [appID]) == true else {
                throw HeraldError.appNotFound(appID)
            }
            return try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.deviceColumnsAliased),
                    (SELECT count(*) FROM notification n WHERE n.app_id = d.app_id AND n.device_id = d.id),
                    (SELECT count(*) FROM delivery i WHERE i.app_id = d.app_id AND i.device_id = d.id
                        AND i.inbox_seq IS NOT NULL AND i.inbox_acknowledged = 0),
                    e.queue, e.unacknowledged, e.handed_seq
                FROM device d LEFT JOIN device_events e ON e.app_id = d.app_id AND e.device_id = d.id
                WHERE d.app_id = ? AND d.broadcast_channel IS NULL ORDER BY d.id LIMIT ?
                """), arguments: [appID, limit]).map { row in
                let next = Self.deviceColumnCount
                let backlog = try AcknowledgedBacklog(storedQueue: row[next + 2], unacknowledged: row[next + 3],
                                                      handedSequence: row[next + 4])
                return DeviceStatus(device: try Self.device(from: row), pendingNotifications: row[next], inbox: row[next + 1],
                                    eventBacklog: backlog.pendingCount)
            }
        }
    }

    public func inboxEntries(appID: String, deviceID: String, limit: Int) async throws -> [InboxListing] {
        try await connections.read { db in
            _ = try Self.existingDevice(db, appID: appID, deviceID: deviceID)
            return try Row.fetchAll(db.cachedStatement(sql: """
                SELECT inbox_seq, notification_id, occurrence_id, fired_at FROM delivery
                WHERE app_id = ? AND device_id = ? AND inbox_seq IS NOT NULL AND inbox_acknowledged = 0
                ORDER BY inbox_seq LIMIT ?
                """), arguments: [appID, deviceID, limit]).map {
                InboxListing(sequence: $0[0], notificationID: $0[1], occurrenceID: $0[2],
                           firedAt: Date(millisecondsSince1970: $0[3]))
            }
        }
    }
}
