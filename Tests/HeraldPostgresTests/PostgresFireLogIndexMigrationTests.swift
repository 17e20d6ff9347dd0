import Foundation
import HeraldCore
@testable import HeraldPostgres
import HeraldStorage
import HeraldTestSupport
import Logging
import Testing

// "v11: the fire log's device indexes: bytewise keys, history and inbox apart": a database
// written at v10 opens with the fire log's app and device ids collated "C" and each row in one
// device index (history or inbox), its rows found as before through those indexes.
@Suite("PostgreSQL fire-log device index migration")
struct PostgresFireLogIndexMigrationTests {
    static let previous = "v10: an inbox item is its fire-log row, not a copy of it"
    static let newest = "v11: the fire log's device indexes: bytewise keys, history and inbox apart"

    static let logger = quietLogger("herald.test.postgres")

    @Test("Upgrading collates the fire log's device ids \"C\" and splits its device index; listing, inbox and device deletion work as before")
    func deviceIndexesSplit() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let location = try await schema(before: Self.newest, previous: Self.previous, on: server)
        _ = try server.query("""
            INSERT INTO app (id, overflow, created_at, updated_at) VALUES ('app', 'reject', 0, 0);
            INSERT INTO device (app_id, id, time_zone, state, created_at, updated_at)
            VALUES ('app', 'd0', 'UTC', 'suspended', 0, 0), ('app', 'd1', 'UTC', 'suspended', 0, 0);
            INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                missed, channel, outcome, content, inbox_seq)
            VALUES ('a#0', 'app', 'd0', 'a', 1000, 1000, false, 0, 'apns', 'delivered', '{"alert":{"body":"a"}}', NULL),
                   ('b#0', 'app', 'd0', 'b', 2000, 2000, false, 0, 'inbox', 'held', '{"alert":{"body":"b"}}', 7),
                   ('c#0', 'app', 'd1', 'c', 3000, 3000, false, 0, 'inbox', 'held', '{"alert":{"body":"c"}}', 8);
            -- Another device's long history and inbox, so that reading all rows costs more than
            -- reading d0's through an index.
            INSERT INTO device (app_id, id, time_zone, state, created_at, updated_at) VALUES ('app', 'd2', 'UTC', 'suspended', 0, 0);
            INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                missed, channel, outcome, inbox_seq)
            SELECT 'h#' || i, 'app', 'd2', 'h', i, i, false, 0, 'apns', 'delivered', CASE WHEN i % 2 = 0 THEN 100 + i END
            FROM generate_series(1, 4000) AS i;
            """)

        let store = try await PostgresStore.open(location, nodeID: "node-a", logger: Self.logger)
        #expect(try await store.appliedMigrations() == PostgresSchema.migrations.map(\.identifier))
        _ = try server.query("ANALYZE delivery")
        #expect(try server.query("""
            SELECT column_name, collation_name FROM information_schema.columns
            WHERE table_name = 'delivery' AND column_name IN ('app_id', 'device_id') ORDER BY column_name
            """) == [["app_id", "C"], ["device_id", "C"]])

        let history = try await store.deliveries(appID: "app", deviceID: "d0", before: nil, limit: 10)
        #expect(history.items.map(\.notificationID) == ["b", "a"])
        #expect(try await store.inboxEntries(appID: "app", deviceID: "d0", limit: 10).map(\.sequence) == [7])

        // Ids bound as parameters and joined from the device table (the database default) both
        // resolve to the column's "C", so the indexes rebuilt under it still serve those reads:
        // a device's rows (its history and its inbox), and a presentation's row in either.
        let listing = try Self.plan(server, """
            SELECT * FROM (
                (SELECT key FROM delivery WHERE app_id = 'app' AND device_id = 'd0' AND key < 9223372036854775807
                     AND (\(PostgresStore.outOfInbox)) ORDER BY key DESC LIMIT 5)
                UNION ALL
                SELECT key FROM delivery WHERE app_id = 'app' AND device_id = 'd0' AND key < 9223372036854775807
                    AND \(PostgresStore.inInbox)) AS device_rows
            ORDER BY key DESC LIMIT 5
            """)
        #expect(listing.contains("delivery_history") && listing.contains("delivery_inbox"))
        let presentation = try Self.plan(server, """
            SELECT max(key) FROM (
                SELECT key FROM delivery WHERE app_id = 'app' AND device_id = 'd0' AND occurrence_id = 'b#0'
                    AND notification_key IS NULL AND outcome = 'held' AND \(PostgresStore.inInbox)
                UNION ALL
                SELECT key FROM delivery WHERE app_id = 'app' AND device_id = 'd0' AND occurrence_id = 'b#0'
                    AND notification_key IS NULL AND outcome = 'held' AND inbox_seq IS NOT NULL AND inbox_acknowledged
            ) AS presented
            """)
        #expect(presentation.contains("delivery_history") && presentation.contains("delivery_inbox"))
        #expect(try Self.plan(server, """
            SELECT d.id, (SELECT count(*) FROM delivery i WHERE i.app_id = d.app_id AND i.device_id = d.id
                          AND i.inbox_seq IS NOT NULL AND NOT i.inbox_acknowledged)
            FROM device d WHERE d.app_id = 'app'
            """).contains("delivery_inbox"))
        // Each row is in one device index: a firing held in an inbox adds one entry, not two.
        #expect(try server.query("""
            SELECT (SELECT count(*) FROM delivery WHERE \(PostgresStore.outOfInbox)),
                (SELECT count(*) FROM delivery WHERE \(PostgresStore.inInbox))
            """) == [["2001", "2002"]])

        // A deleted device's trigger joins its rows to the fire log's: its inbox goes with it.
        #expect(try await store.deleteDevice(appID: "app", id: "d1"))
        #expect(try server.query("""
            SELECT device_id FROM delivery WHERE inbox_seq IS NOT NULL AND NOT inbox_acknowledged AND device_id <> 'd2'
            """) == [["d0"]])
        await store.close()
    }

    /// The plan PostgreSQL picks for `sql` when it may not scan whole tables.
    static func plan(_ server: PostgresServer, _ sql: String) throws -> String {
        try server.query("SET enable_seqscan = off; EXPLAIN \(sql)").map { $0.joined(separator: "|") }
            .joined(separator: "\n")
    }
}
