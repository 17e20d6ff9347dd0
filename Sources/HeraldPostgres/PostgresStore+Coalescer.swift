import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// ``CoalescerStore`` on PostgreSQL. A change locks the device's row first, so a wake on one
/// node and events reported through another apply one after the other, and a backlog is never
/// handed over twice.
extension PostgresStore {
    public func deviceEvents(appID: String, deviceID: String) async throws -> DeviceEvents {
        try await read { connection in
            guard let row = try await connection.row("""
                SELECT \(unescaped: Self.deviceColumns), \(unescaped: Self.deviceEventsColumns)
                FROM device d LEFT JOIN device_events e ON e.app_id = d.app_id AND e.device_id = d.id
                WHERE d.app_id = \(appID) AND d.id = \(deviceID)
                """, logger: self.logger) else {
                throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
            }
            return try Self.deviceEvents(from: row, device: try Self.device(from: row), offset: Self.deviceColumnCount)
        }
    }

    /// Four statements: the lock with a hand-over id drawn under it, the events read after it
    /// (so they are what the lock's last holder committed), the write, and the inbox read when
    /// a wake asks for it.
    public func changeDeviceEvents<Outcome: Sendable>(
        appID: String, deviceID: String,
        _ change: @escaping @Sendable (inout DeviceEventsUpdate) throws -> Outcome
    ) async throws -> DeviceEventsWrite<Outcome> {
        try await transaction { connection in
            guard let locked = try await connection.row("""
                WITH locked AS MATERIALIZED (
                    SELECT \(unescaped: Self.deviceColumns) FROM device d WHERE d.app_id = \(appID) AND d.id = \(deviceID)
                    FOR NO KEY UPDATE
                )
                SELECT locked.*, nextval('hand_over_sequence') FROM locked
                """, logger: self.logger) else {
                throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
            }
            let device = try Self.device(from: locked)
            let handOverID = try locked.value(Self.deviceColumnCount, as: Int64.self)
            let row = try await connection.row("""
                SELECT \(unescaped: Self.deviceEventsColumns) FROM device_events e
                WHERE e.app_id = \(appID) AND e.device_id = \(deviceID)
                """, logger: self.logger)
            let before = try row.map { try Self.deviceEvents(from: $0, device: device, offset: 0) } ?? DeviceEvents(device: device)
            var update = DeviceEventsUpdate(events: before, handOverID: handOverID)
            let outcome = try change(&update)
            let stored = try update.changedEvents()
            let newState = update.movedState?.rawValue
            // One statement for every write; each part does nothing when its parameter says so.
            let acknowledged = try await connection.row("""
                WITH acknowledged AS (
                    UPDATE delivery SET inbox_acknowledged = true
                    WHERE \(update.inboxAcknowledgedUpTo)::bigint IS NOT NULL AND app_id = \(appID) AND device_id = \(deviceID)
                        AND \(unescaped: Self.inInbox) AND inbox_seq <= \(update.inboxAcknowledgedUpTo)
                    RETURNING 1
                ), moved AS (
                    UPDATE device SET state = \(newState) WHERE \(newState)::text IS NOT NULL AND app_id = \(appID) AND id = \(deviceID)
                ), events AS (
                    INSERT INTO device_events (app_id, device_id, queue, unacknowledged, handed_seq, live_events, wake_pushes)
                    SELECT \(appID), \(deviceID), \(stored?.queue), \(stored?.unacknowledged), \(stored?.handedSequence),
                        \(stored?.live), \(stored?.wakePushes)
                    WHERE \(stored != nil)
                    ON CONFLICT (app_id, device_id) DO UPDATE SET queue = excluded.queue,
                        unacknowledged = excluded.unacknowledged, handed_seq = excluded.handed_seq,
                        live_events = excluded.live_events, wake_pushes = excluded.wake_pushes
                )
                SELECT count(*) FROM acknowledged
                """, logger: self.logger)?.value(0, as: Int64.self) ?? 0
            // After the write, so what it acknowledged is not read back.
            let inbox = update.readsInbox ? try await self.unacknowledgedInbox(connection, appID: appID, deviceID: deviceID) : []
            return DeviceEventsWrite(outcome: outcome, events: update.events, inboxAcknowledged: Int(acknowledged), inbox: inbox)
        }
    }

    /// One statement, so one snapshot: the live hand-overs' row first, then the inbox items in
    /// id order.
    public func handedOver(appID: String, deviceID: String, after: Int64) async throws -> (inbox: [InboxItem], live: LiveHandOvers) {
        try await read { connection in
            let rows = try await connection.rows("""
                SELECT 0 AS part, live_events, \(unescaped: Self.inboxPlaceholders) FROM device_events
                WHERE app_id = \(appID) AND device_id = \(deviceID)
                UNION ALL
                SELECT 1, NULL, \(unescaped: Self.inboxColumns) FROM delivery
                WHERE app_id = \(appID) AND device_id = \(deviceID) AND \(unescaped: Self.inInbox)
                    AND inbox_seq > \(after)
                ORDER BY part, inbox_seq
                """, logger: self.logger)
            var live = LiveHandOvers()
            var inbox: [InboxItem] = []
            for row in rows {
                if try row.value(0, as: Int32.self) == 0 {
                    live = try StoredDeviceEvents.liveHandOvers(stored: try row.value(1, as: String?.self))
                } else {
                    inbox.append(try Self.inboxItem(from: row, offset: 2, appID: appID, deviceID: deviceID))
                }
            }
            return (inbox, live)
        }
    }

    /// The columns of a device's events, as ``deviceEvents(from:device:offset:)`` reads them.
    static let deviceEventsColumns = "e.queue, e.unacknowledged, e.handed_seq, e.live_events, e.wake_pushes"

    /// NULLs typed as ``inboxColumns``, for the live row of ``handedOver(appID:deviceID:after:)``.
    static let inboxPlaceholders = "NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::boolean, NULL::bigint, NULL::text, NULL::bigint AS inbox_seq"

    static func deviceEvents(from row: PostgresRandomAccessRow, device: Device, offset: Int) throws -> DeviceEvents {
        try StoredDeviceEvents.decode(device: device, queue: try row.value(offset), unacknowledged: try row.value(offset + 1),
                                      handedSequence: try row.value(offset + 2), live: try row.value(offset + 3),
                                      wakePushes: try row.value(offset + 4))
    }
}
