import Foundation
import GRDB
import HeraldCore

/// ``CoalescerStore`` on SQLite: a change is one write transaction (SQLite's writer is the
/// device's lock), so a restart loses nothing queued and a wake never hands the same backlog
/// over twice.
extension SQLiteStore {
    public func deviceEvents(appID: String, deviceID: String) async throws -> DeviceEvents {
        try await connections.read { db in try Self.deviceEvents(db, appID: appID, deviceID: deviceID) }
    }

    public func changeDeviceEvents<Outcome: Sendable>(
        appID: String, deviceID: String,
        _ change: @escaping @Sendable (inout DeviceEventsUpdate) throws -> Outcome
    ) async throws -> DeviceEventsWrite<Outcome> {
        try await connections.write { db in
            let before = try Self.deviceEvents(db, appID: appID, deviceID: deviceID)
            // The next id of the series, reserved only if the change takes it: writes are serial.
            let nextID = (try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM hand_over_sequence WHERE id = 1")) ?? 0) + 1
            var update = DeviceEventsUpdate(events: before, handOverID: nextID)
            let outcome = try change(&update)
            if update.drewHandOverID { _ = try Self.reserveHandOverSequences(1, db) }
            var acknowledged = 0
            if let upTo = update.inboxAcknowledgedUpTo {
                try db.cachedStatement(sql: """
                    UPDATE delivery SET inbox_acknowledged = 1
                    WHERE app_id = ? AND device_id = ? AND inbox_seq IS NOT NULL AND inbox_seq <= ? AND inbox_acknowledged = 0
                    """).execute(arguments: [appID, deviceID, upTo])
                acknowledged = db.changesCount
            }
            if let state = update.movedState {
                try db.cachedStatement(sql: "UPDATE device SET state = ? WHERE app_id = ? AND id = ?")
                    .execute(arguments: [state.rawValue, appID, deviceID])
            }
            if let stored = try update.changedEvents() {
                try db.cachedStatement(sql: """
                    INSERT INTO device_events (app_id, device_id, queue, unacknowledged, handed_seq, live_events, wake_pushes)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(app_id, device_id) DO UPDATE SET queue = excluded.queue,
                        unacknowledged = excluded.unacknowledged, handed_seq = excluded.handed_seq,
                        live_events = excluded.live_events, wake_pushes = excluded.wake_pushes
                    """).execute(arguments: [appID, deviceID, stored.queue, stored.unacknowledged, stored.handedSequence,
                                     stored.live, stored.wakePushes])
            }
            let inbox = update.readsInbox ? try Self.unacknowledgedInbox(db, appID: appID, deviceID: deviceID) : []
            return DeviceEventsWrite(outcome: outcome, events: update.events, inboxAcknowledged: acknowledged, inbox: inbox)
        }
    }

    public func handedOver(appID: String, deviceID: String, after: Int64) async throws -> (inbox: [InboxItem], live: LiveHandOvers) {
        // A read is one snapshot: both lists stop at the same committed id.
        try await connections.read { db in
            let live = try String.fetchOne(db.cachedStatement(sql: """
                SELECT live_events FROM device_events WHERE app_id = ? AND device_id = ?
                """), arguments: [appID, deviceID])
            return (try Self.unacknowledgedInbox(db, appID: appID, deviceID: deviceID, after: after),
                    try StoredDeviceEvents.liveHandOvers(stored: live))
        }
    }

    static func deviceEvents(_ db: Database, appID: String, deviceID: String) throws -> DeviceEvents {
        let device = try existingDevice(db, appID: appID, deviceID: deviceID)
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT queue, unacknowledged, handed_seq, live_events, wake_pushes FROM device_events
            WHERE app_id = ? AND device_id = ?
            """), arguments: [appID, deviceID])
        return try StoredDeviceEvents.decode(device: device, queue: row?[0], unacknowledged: row?[1], handedSequence: row?[2],
                                             live: row?[3], wakePushes: row?[4])
    }
}
