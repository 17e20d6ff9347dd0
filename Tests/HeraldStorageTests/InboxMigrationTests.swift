import Foundation
import GRDB
import HeraldCore
@testable import HeraldStorage
import HeraldTestSupport
import Testing

@Suite("SQLite inbox migration")
struct InboxMigrationTests {
    @Test("Upgrading makes each inbox item its fire-log row: the same ids, acknowledgements kept, the series going on above them")
    func itemsBecomeFireLogRows() async throws {
        let directory = NSTemporaryDirectory() + "herald-inbox-migration-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            // The last schema with a separate inbox table: a held firing (item 5), an
            // acknowledged one whose firing is still pending (6), and an item whose fire-log row
            // retention already removed (7); backlog hand-overs took the series up to 9.
            let pool = try DatabasePool(path: directory + "/herald.sqlite")
            try SQLiteStore.migrator.migrate(pool, upTo: "v14: Live Activity tokens on devices; broadcast channels as audiences")
            try await pool.write { db in
                try db.execute(sql: """
                    INSERT INTO app (id, overflow, created_at, updated_at) VALUES ('app', 'reject', 0, 0);
                    INSERT INTO device (app_id, id, time_zone, state, created_at, updated_at) VALUES ('app', 'd0', 'UTC', 'notRunning', 0, 0);
                    INSERT INTO delivery (key, occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                        missed, channel, outcome, content, notification_key, generation, occurrence_index)
                    VALUES (1, 'a#0', 'app', 'd0', 'a', 1000, 1000, 0, 0, 'inbox', 'held', '{"alert":{"body":"a"}}', 11, 1, 0),
                           (2, 'b#0', 'app', 'd0', 'b', 2000, 2000, 0, 0, 'pending', 'pending', '{"alert":{"body":"b"}}', 12, 1, 0);
                    INSERT INTO device_inbox (key, app_id, device_id, occurrence_id, notification_id, scheduled_for, fired_at,
                        late, missed, content, delivery_key, acknowledged)
                    VALUES (5, 'app', 'd0', 'a#0', 'a', 1000, 1000, 0, 0, '{"alert":{"body":"a"}}', 1, 0),
                           (6, 'app', 'd0', 'b#0', 'b', 2000, 2000, 0, 0, '{"alert":{"body":"b"}}', 2, 1),
                           (7, 'app', 'd0', 'c#0', 'c', 3000, 3000, 0, 0, '{"alert":{"body":"c"}}', 3, 0);
                    UPDATE sqlite_sequence SET seq = 9 WHERE name = 'device_inbox';
                    """)
            }
            try pool.close()
        }

        let store = try SQLiteStore(directory: directory)
        try await InboxUpgrade.expectUpgraded(store)
    }
}
