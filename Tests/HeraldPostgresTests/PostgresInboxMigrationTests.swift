import Foundation
import HeraldCore
@testable import HeraldPostgres
import HeraldStorage
import HeraldTestSupport
import Logging
import Testing

// "v10: an inbox item is its fire-log row, not a copy of it": a database written at v9, with a
// separate inbox table, opens with each item in its fire-log row under the same id.
@Suite("PostgreSQL inbox migration")
struct PostgresInboxMigrationTests {
    static let previous = "v9: a device's pending version, moved by every schedule written for it"
    static let newest = "v10: an inbox item is its fire-log row, not a copy of it"

    static let logger = quietLogger("herald.test.postgres")

    @Test("Upgrading makes each inbox item its fire-log row: the same ids, acknowledgements kept, the series going on above them")
    func itemsBecomeFireLogRows() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let location = try await schema(before: Self.newest, previous: Self.previous, on: server)
        _ = try server.query("""
            INSERT INTO app (id, overflow, created_at, updated_at) VALUES ('app', 'reject', 0, 0);
            INSERT INTO device (app_id, id, time_zone, state, created_at, updated_at) VALUES ('app', 'd0', 'UTC', 'notRunning', 0, 0);
            INSERT INTO delivery (key, occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                missed, channel, outcome, content, notification_key, generation, occurrence_index)
            VALUES (1, 'a#0', 'app', 'd0', 'a', 1000, 1000, false, 0, 'inbox', 'held', '{"alert":{"body":"a"}}', 11, 1, 0),
                   (2, 'b#0', 'app', 'd0', 'b', 2000, 2000, false, 0, 'pending', 'pending', '{"alert":{"body":"b"}}', 12, 1, 0);
            SELECT setval('delivery_key_seq', 3);
            INSERT INTO device_inbox (key, app_id, device_id, occurrence_id, notification_id, scheduled_for, fired_at,
                late, missed, content, delivery_key, acknowledged)
            VALUES (5, 'app', 'd0', 'a#0', 'a', 1000, 1000, false, 0, '{"alert":{"body":"a"}}', 1, false),
                   (6, 'app', 'd0', 'b#0', 'b', 2000, 2000, false, 0, '{"alert":{"body":"b"}}', 2, true),
                   (7, 'app', 'd0', 'c#0', 'c', 3000, 3000, false, 0, '{"alert":{"body":"c"}}', 3, false);
            SELECT setval('hand_over_sequence', 9);
            """)

        let store = try await PostgresStore.open(location, nodeID: "node-a", logger: Self.logger)
        #expect(try await store.appliedMigrations() == PostgresSchema.migrations.map(\.identifier))
        try await InboxUpgrade.expectUpgraded(store)
        // A deleted device takes its inbox with it; its firings stay, as history.
        #expect(try await store.deleteDevice(appID: "app", id: "d0"))
        #expect(try server.query("SELECT count(*) FROM delivery WHERE inbox_seq IS NOT NULL AND NOT inbox_acknowledged")
                == [["0"]])
        await store.close()
    }
}
