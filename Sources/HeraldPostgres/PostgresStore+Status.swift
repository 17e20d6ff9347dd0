import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

extension PostgresStore {
    public func probe() async throws {
        _ = try await read { connection in try await connection.row("SELECT 1", logger: self.logger) }
    }

    public func storeGauges() async throws -> StoreGauges {
        try await read { connection in
            var gauges = StoreGauges()
            let counts = try await connection.row("""
                SELECT (SELECT count(*) FROM notification), (SELECT count(*) FROM delivery WHERE outcome = 'pending')
                """, logger: self.logger)
            gauges.pendingNotifications = Int(try counts?.value(0, as: Int64.self) ?? 0)
            gauges.fireLogBacklog = Int(try counts?.value(1, as: Int64.self) ?? 0)
            for row in try await connection.rows("SELECT state, count(*) FROM outbox WHERE state != 'delivered' GROUP BY state",
                                                 logger: self.logger) {
                let count = Int(try row.value(1, as: Int64.self))
                if try row.value(0, as: String.self) == OutboxMessage.State.parked.rawValue {
                    gauges.outboxParked = count
                } else {
                    gauges.outboxPending += count
                }
            }
            return gauges
        }
    }

    public func eventBacklogByKind() async throws -> [String: Int] {
        try await read { connection in
            var counts: [String: Int] = [:]
            let rows = try await connection.query("SELECT queue, unacknowledged, handed_seq FROM device_events", logger: self.logger)
            for try await (queue, unacknowledged, handed) in rows.decode((String?, String?, Int64?).self) {
                let backlog = try AcknowledgedBacklog(storedQueue: queue, unacknowledged: unacknowledged, handedSequence: handed)
                counts.merge(backlog.pendingByKind, uniquingKeysWith: +)
            }
            return counts
        }
    }

    public func appStatuses() async throws -> [AppStatus] {
        try await read { connection in
            try await connection.rows("""
                SELECT a.id,
                    (SELECT count(*) FROM device d WHERE d.app_id = a.id AND d.broadcast_channel IS NULL),
                    (SELECT count(*) FROM notification n WHERE n.app_id = a.id),
                    (SELECT count(*) FROM invalid_token t WHERE t.app_id = a.id)
                FROM app a ORDER BY a.id
                """, logger: self.logger).map { row in
                AppStatus(appID: try row.value(0), devices: Int(try row.value(1, as: Int64.self)),
                          pendingNotifications: Int(try row.value(2, as: Int64.self)),
                          invalidTokens: Int(try row.value(3, as: Int64.self)))
            }
        }
    }

    public func deviceStatuses(appID: String, limit: Int) async throws -> [DeviceStatus] {
        try await read { connection in
            guard try await connection.row("SELECT 1 FROM app WHERE id = \(appID)", logger: self.logger) != nil else {
                throw HeraldError.appNotFound(appID)
            }
            return try await connection.rows("""
                SELECT \(unescaped: Self.deviceColumns),
                    (SELECT count(*) FROM notification n WHERE n.app_id = d.app_id AND n.device_id = d.id),
                    (SELECT count(*) FROM delivery i WHERE i.app_id = d.app_id AND i.device_id = d.id AND i.inbox_seq IS NOT NULL
                        AND NOT i.inbox_acknowledged),
                    e.queue, e.unacknowledged, e.handed_seq
                FROM device d LEFT JOIN device_events e ON e.app_id = d.app_id AND e.device_id = d.id
                WHERE d.app_id = \(appID) AND d.broadcast_channel IS NULL ORDER BY d.id LIMIT \(limit)
                """, logger: self.logger).map { row in
                let next = Self.deviceColumnCount
                let backlog = try AcknowledgedBacklog(storedQueue: try row.value(next + 2, as: String?.self),
                                                      unacknowledged: try row.value(next + 3, as: String?.self),
                                                      handedSequence: try row.value(next + 4, as: Int64?.self))
                return DeviceStatus(device: try Self.device(from: row), pendingNotifications: Int(try row.value(next, as: Int64.self)),
                                    inbox: Int(try row.value(next + 1, as: Int64.self)), eventBacklog: backlog.pendingCount)
            }
        }
    }

    public func inboxEntries(appID: String, deviceID: String, limit: Int) async throws -> [InboxListing] {
        try await read { connection in
            guard try await connection.row("SELECT 1 FROM device WHERE app_id = \(appID) AND id = \(deviceID)",
                                           logger: self.logger) != nil else {
                throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
            }
            return try await connection.rows("""
                SELECT inbox_seq, notification_id, occurrence_id, fired_at FROM delivery
                WHERE app_id = \(appID) AND device_id = \(deviceID) AND \(unescaped: Self.inInbox)
                ORDER BY inbox_seq LIMIT \(limit)
                """, logger: self.logger).map { row in
                InboxListing(sequence: try row.value(0), notificationID: try row.value(1), occurrenceID: try row.value(2),
                           firedAt: Date(millisecondsSince1970: try row.value(3)))
            }
        }
    }
}
