import Foundation
import HeraldCore
@testable import HeraldPostgres
import HeraldStorage
import HeraldTestSupport
import Logging
import Testing

// "v9: a device's pending version, moved by every schedule written for it": a database written at
// v8 opens with every device and notification, each device's version at 0, and schedules on.
@Suite("PostgreSQL pending version migration")
struct PostgresPendingVersionMigrationTests {
    static let previous = "v8: inbox items go with their device through a trigger, not a foreign key"
    static let newest = "v9: a device's pending version, moved by every schedule written for it"

    static let logger = quietLogger("herald.test.postgres")

    @Test("Upgrading to the pending version keeps every device and notification; each device starts at version 0 and schedules on")
    func upgradeKeepsDevicesAndNotifications() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        // The last schema without a pending version: an app, two devices, and three notifications
        // (d0's stored before and after d1's, so keys interleave): a one-shot, a daily series
        // already advanced once and replaced once, and a floating one.
        let location = try await schema(before: Self.newest, previous: Self.previous, on: server)
        #expect(try server.query("""
            SELECT count(*) FROM information_schema.columns WHERE table_name = 'device' AND column_name = 'pending_version'
            """) == [["0"]])
        _ = try server.query("""
            INSERT INTO app (id, overflow, created_at, updated_at) VALUES ('app', 'reject', 0, 0);
            INSERT INTO device (app_id, id, time_zone, state, created_at, updated_at)
            VALUES ('app', 'd0', 'UTC', 'notRunning', 0, 0), ('app', 'd1', 'UTC', 'notRunning', 0, 0);
            INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, repeat_unit, repeat_every,
                repeat_count, repeat_until, repeat_until_at, content, next_index, next_fire_at, revision, generation,
                created_at)
            VALUES ('app', 'd0', 'a', '2030-01-01T00:01:00Z', NULL, NULL, NULL, NULL, NULL, NULL,
                    '{"alert":{"body":"a"}}', 0, 1893456060000, 1, 1, 0),
                   ('app', 'd1', 'c', '2030-01-02T09:00:00', 'floating', NULL, NULL, NULL, NULL, NULL,
                    '{"alert":{"body":"c"}}', 0, 1893574800000, 1, 1, 0),
                   ('app', 'd0', 'b', '2030-01-01T08:00:00Z', 'Europe/Paris', 'day', 1, 3, NULL, NULL,
                    '{"alert":{"body":"b"}}', 1, 1893571200000, 3, 2, 0);
            """)

        let store = try await PostgresStore.open(location, nodeID: "node-a", logger: Self.logger)
        #expect(try await store.appliedMigrations() == PostgresSchema.migrations.map(\.identifier))
        try await PendingVersionUpgrade.expectUpgraded(store)
        await store.close()
    }
}
