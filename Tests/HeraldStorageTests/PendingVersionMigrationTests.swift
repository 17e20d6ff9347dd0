import Foundation
import GRDB
import HeraldCore
@testable import HeraldStorage
import HeraldTestSupport
import Testing

// "v16: a device's pending version, moved by every schedule written for it": a store written at
// v15 opens with every device and notification, each device's version at 0, and schedules on.
@Suite("SQLite pending version migration")
struct PendingVersionMigrationTests {

    @Test("Upgrading to the pending version keeps every device and notification; each device starts at version 0 and schedules on")
    func upgradeKeepsDevicesAndNotifications() async throws {
        let directory = NSTemporaryDirectory() + "herald-pending-version-migration-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            // The last schema without a pending version: an app, two devices, and three
            // notifications (d0's stored before and after d1's, so keys interleave): a one-shot,
            // a daily series already advanced once and replaced once, and a floating one.
            let pool = try DatabasePool(path: directory + "/herald.sqlite")
            try SQLiteStore.migrator.migrate(pool, upTo: "v15: an inbox item is its fire-log row, not a copy of it")
            try await pool.write { db in
                #expect(try !db.columns(in: "device").contains { $0.name == "pending_version" })
                try db.execute(sql: """
                    INSERT INTO app (id, overflow, created_at, updated_at) VALUES ('app', 'reject', 0, 0);
                    INSERT INTO device (app_id, id, time_zone, state, created_at, updated_at)
                    VALUES ('app', 'd0', 'UTC', 'notRunning', 0, 0), ('app', 'd1', 'UTC', 'notRunning', 0, 0);
                    INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, repeat_unit, repeat_every,
                        repeat_count, repeat_until, content, next_index, next_fire_at, revision, generation, created_at)
                    VALUES ('app', 'd0', 'a', '2030-01-01T00:01:00Z', NULL, NULL, NULL, NULL, NULL,
                            '{"alert":{"body":"a"}}', 0, 1893456060000, 1, 1, 0),
                           ('app', 'd1', 'c', '2030-01-02T09:00:00', 'floating', NULL, NULL, NULL, NULL,
                            '{"alert":{"body":"c"}}', 0, 1893574800000, 1, 1, 0),
                           ('app', 'd0', 'b', '2030-01-01T08:00:00Z', 'Europe/Paris', 'day', 1, 3, NULL,
                            '{"alert":{"body":"b"}}', 1, 1893571200000, 3, 2, 0);
                    """)
            }
            try pool.close()
        }

        let store = try SQLiteStore(directory: directory)
        try await PendingVersionUpgrade.expectUpgraded(store)
    }
}
