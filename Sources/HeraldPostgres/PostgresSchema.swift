import Logging
import PostgresNIO

/// The PostgreSQL schema, as ordered migrations. Add a new one; never edit a shipped one.
///
/// Every node runs them at start-up while holding one advisory lock, so nodes started together
/// apply each migration once; a node that finds them applied changes nothing.
enum PostgresSchema {
    struct Migration: Sendable {
        var identifier: String
        /// Run in order, in one transaction with the record that it was applied.
        var statements: [String]
    }

    /// The advisory lock key every node takes to migrate ("herald" in ASCII).
    static let migrationLock: Int64 = 0x68_65_72_61_6c_64

    static let migrations: [Migration] = [
        Migration(identifier: "v1: the schema SQLite reached at v9, and nodes", statements: [
            """
            CREATE TABLE app (
                id text PRIMARY KEY,
                overflow text NOT NULL,
                push text,
                custom_kinds text,
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL
            )
            """,
            """
            CREATE TABLE device (
                app_id text NOT NULL REFERENCES app(id) ON DELETE CASCADE,
                id text NOT NULL,
                time_zone text NOT NULL,
                token text,
                voip_token text,
                locale text,
                state text NOT NULL,
                background_modes text NOT NULL DEFAULT '',
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL,
                PRIMARY KEY (app_id, id)
            )
            """,
            """
            CREATE TABLE notification (
                key bigserial PRIMARY KEY,
                app_id text NOT NULL,
                device_id text NOT NULL,
                id text NOT NULL,
                fire_date text NOT NULL,
                time_zone text,
                repeat_unit text,
                repeat_every integer,
                repeat_count integer,
                repeat_until text,
                content text NOT NULL,
                next_index bigint NOT NULL,
                next_fire_at bigint NOT NULL,
                revision bigint NOT NULL,
                generation bigint NOT NULL DEFAULT 1,
                created_at bigint NOT NULL,
                UNIQUE (app_id, device_id, id),
                FOREIGN KEY (app_id, device_id) REFERENCES device(app_id, id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX notification_due ON notification (next_fire_at)",
            // The fire log: each firing with the content to deliver, unique per occurrence, and
            // while it has no outcome the node delivering it and that node's lease.
            """
            CREATE TABLE delivery (
                key bigserial PRIMARY KEY,
                occurrence_id text NOT NULL,
                app_id text NOT NULL,
                device_id text NOT NULL,
                notification_id text NOT NULL,
                scheduled_for bigint NOT NULL,
                fired_at bigint NOT NULL,
                late boolean NOT NULL,
                missed bigint NOT NULL,
                channel text NOT NULL,
                outcome text NOT NULL,
                apns_status integer,
                apns_id text,
                content text,
                notification_key bigint,
                generation bigint,
                occurrence_index bigint,
                claimed_by text,
                lease_until bigint
            )
            """,
            "CREATE INDEX delivery_by_device ON delivery (app_id, device_id, key)",
            "CREATE INDEX delivery_pending ON delivery (lease_until) WHERE outcome = 'pending'",
            """
            CREATE UNIQUE INDEX delivery_occurrence ON delivery (notification_key, generation, occurrence_index)
                WHERE notification_key IS NOT NULL
            """,
            """
            CREATE TABLE invalid_token (
                app_id text NOT NULL,
                token text NOT NULL,
                reason text NOT NULL,
                apns_timestamp bigint,
                invalidated_at bigint NOT NULL,
                PRIMARY KEY (app_id, token)
            )
            """,
            """
            CREATE TABLE token_registration (
                app_id text NOT NULL,
                token text NOT NULL,
                registered_at bigint NOT NULL,
                PRIMARY KEY (app_id, token)
            )
            """,
            """
            CREATE TABLE feedback_event (
                key bigserial PRIMARY KEY,
                type text NOT NULL,
                app_id text NOT NULL,
                payload text NOT NULL,
                created_at bigint NOT NULL
            )
            """,
            "CREATE INDEX feedback_event_by_created_at ON feedback_event (created_at)",
            """
            CREATE TABLE device_events (
                app_id text NOT NULL,
                device_id text NOT NULL,
                queue text NOT NULL,
                unacknowledged text,
                handed_seq bigint,
                wake_pushes text NOT NULL DEFAULT '[]',
                PRIMARY KEY (app_id, device_id),
                FOREIGN KEY (app_id, device_id) REFERENCES device(app_id, id) ON DELETE CASCADE
            )
            """,
            // Inbox items and backlog hand-overs take their ids from one series.
            "CREATE SEQUENCE hand_over_sequence",
            """
            CREATE TABLE device_inbox (
                key bigint PRIMARY KEY DEFAULT nextval('hand_over_sequence'),
                app_id text NOT NULL,
                device_id text NOT NULL,
                occurrence_id text NOT NULL,
                notification_id text NOT NULL,
                scheduled_for bigint NOT NULL,
                fired_at bigint NOT NULL,
                late boolean NOT NULL,
                missed bigint NOT NULL,
                content text NOT NULL,
                delivery_key bigint UNIQUE,
                FOREIGN KEY (app_id, device_id) REFERENCES device(app_id, id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX device_inbox_by_device ON device_inbox (app_id, device_id, key)",
            """
            CREATE TABLE hook (
                name text PRIMARY KEY,
                definition text NOT NULL,
                updated_at bigint NOT NULL
            )
            """,
            """
            CREATE TABLE idempotency (
                hook text NOT NULL,
                key text NOT NULL,
                state text NOT NULL,
                response text,
                created_at bigint NOT NULL,
                PRIMARY KEY (hook, key)
            )
            """,
            "CREATE INDEX idempotency_by_created_at ON idempotency (created_at)",
            """
            CREATE TABLE outbox (
                key bigserial PRIMARY KEY,
                event_key bigint NOT NULL,
                url text NOT NULL,
                type text NOT NULL,
                body text NOT NULL,
                attempts integer NOT NULL DEFAULT 0,
                next_attempt_at bigint NOT NULL,
                state text NOT NULL,
                last_error text,
                claimed_by text,
                lease_until bigint,
                created_at bigint NOT NULL
            )
            """,
            "CREATE INDEX outbox_due ON outbox (state, next_attempt_at)",
            "CREATE INDEX outbox_by_receiver ON outbox (url, state)",
            """
            CREATE TABLE feedback_receiver (
                url text PRIMARY KEY,
                last_event_key bigint NOT NULL
            )
            """,
            // The nodes sharing this database: what their leases are measured against.
            """
            CREATE TABLE node (
                id text PRIMARY KEY,
                started_at bigint NOT NULL,
                heartbeat_at bigint NOT NULL
            )
            """,
        ]),
        Migration(identifier: "v2: instant repeat ends as numbers; leases found by node; handovers counted", statements: [
            // A repeat's instant end as milliseconds, beside repeat_until's wall-clock text.
            "ALTER TABLE notification ADD COLUMN repeat_until_at bigint",
            // A node renews and a recovering node takes over pending firings by who holds them.
            "CREATE INDEX delivery_pending_by_node ON delivery (claimed_by) WHERE outcome = 'pending'",
            // How often a firing was taken over (a restart, a dead node): only these may repeat.
            "ALTER TABLE delivery ADD COLUMN handovers integer NOT NULL DEFAULT 0",
            // A firing's lease is its node's heartbeat: the per-row lease of v1 is gone.
            "DROP INDEX delivery_pending",
            "ALTER TABLE delivery DROP COLUMN lease_until",
        ]),
        Migration(identifier: "v3: live streams and the node holding each", statements: [
            // A device's stream may be on any node: a live message produced elsewhere finds it here.
            """
            CREATE TABLE live_stream (
                id text PRIMARY KEY,
                app_id text NOT NULL,
                device_id text NOT NULL,
                node_id text NOT NULL,
                opened_at bigint NOT NULL
            )
            """,
            "CREATE INDEX live_stream_by_device ON live_stream (app_id, device_id)",
            "CREATE INDEX live_stream_by_node ON live_stream (node_id)",
        ]),
        Migration(identifier: "v4: outbox messages leased per attempt, under a token", statements: [
            // Every write by a lease holder names its token, so a holder whose lease ran out
            // (and whose message another node now holds) changes nothing.
            "ALTER TABLE outbox ADD COLUMN lease_token text",
            // An acknowledged inbox item stays, as a tombstone, while its firing is pending: a
            // firing handed over again after its item was acknowledged (a retry after a lost
            // reply) finds it and is not held, and so not handed over, a second time.
            "ALTER TABLE device_inbox ADD COLUMN acknowledged boolean NOT NULL DEFAULT false",
        ]),
        Migration(identifier: "v5: live system events kept until acknowledged", statements: [
            // Every stream of the device reads them here (word between nodes can be lost; they cannot).
            "ALTER TABLE device_events ADD COLUMN live_events text",
        ]),
        Migration(identifier: "v6: platforms: FCM and Web Push addresses on devices, their settings on apps", statements: [
            "ALTER TABLE device ADD COLUMN platform text NOT NULL DEFAULT 'ios'",
            "ALTER TABLE device ADD COLUMN fcm_token text",
            "ALTER TABLE device ADD COLUMN web_push text",
            "ALTER TABLE app ADD COLUMN fcm text",
            "ALTER TABLE app ADD COLUMN web_push text",
        ]),
        Migration(identifier: "v7: Live Activity tokens on devices; broadcast channels as audiences", statements: [
            "ALTER TABLE device ADD COLUMN push_to_start_tokens text",
            "ALTER TABLE device ADD COLUMN activities text",
            "ALTER TABLE device ADD COLUMN broadcast_channel text",
        ]),
        Migration(identifier: "v8: inbox items go with their device through a trigger, not a foreign key", statements: [
            // The foreign key checked every inbox item's device as it was inserted, a query and a
            // row lock per item; holdInInbox already locks each device once per batch and holds
            // nothing for a device that is gone. What the key did on delete, the trigger does:
            // one statement per deleted set of devices (an app's, when the app is deleted).
            "ALTER TABLE device_inbox DROP CONSTRAINT device_inbox_app_id_device_id_fkey",
            """
            CREATE FUNCTION herald_device_inbox_gone() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM device_inbox i USING gone WHERE i.app_id = gone.app_id AND i.device_id = gone.id;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER device_inbox_gone AFTER DELETE ON device REFERENCING OLD TABLE AS gone
                FOR EACH STATEMENT EXECUTE FUNCTION herald_device_inbox_gone()
            """,
        ]),
        Migration(identifier: "v9: a device's pending version, moved by every schedule written for it", statements: [
            // A schedule reads, decides, and writes only if no other schedule for the device
            // committed meanwhile: two round trips and no lock held between them.
            "ALTER TABLE device ADD COLUMN pending_version bigint NOT NULL DEFAULT 0",
        ]),
        Migration(identifier: "v10: an inbox item is its fire-log row, not a copy of it", statements: [
            // Held in the inbox: the hand-over id the device acknowledges (from the series shared
            // with backlog hand-overs), and whether it did. A firing is written once: a claim
            // holds it in the row it inserts, instead of a second row with its content copied.
            "ALTER TABLE delivery ADD COLUMN inbox_seq bigint",
            "ALTER TABLE delivery ADD COLUMN inbox_acknowledged boolean NOT NULL DEFAULT false",
            """
            CREATE INDEX delivery_inbox ON delivery (app_id, device_id, inbox_seq)
                WHERE inbox_seq IS NOT NULL AND NOT inbox_acknowledged
            """,
            """
            UPDATE delivery l SET inbox_seq = i.key, inbox_acknowledged = i.acknowledged,
                content = coalesce(l.content, i.content)
            FROM device_inbox i WHERE i.delivery_key = l.key
            """,
            // Items whose fire-log row is gone (or never was: a presentation) become rows of their own.
            """
            INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                missed, channel, outcome, content, inbox_seq, inbox_acknowledged)
            SELECT occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late, missed,
                'inbox', 'held', content, key, acknowledged
            FROM device_inbox i
            WHERE i.delivery_key IS NULL OR NOT EXISTS (SELECT 1 FROM delivery l WHERE l.key = i.delivery_key)
            """,
            "DROP TABLE device_inbox",
            // A deleted device (or app) takes its inbox with it; its firings stay, as history.
            """
            CREATE OR REPLACE FUNCTION herald_device_inbox_gone() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE delivery l SET inbox_acknowledged = true FROM gone
                WHERE l.app_id = gone.app_id AND l.device_id = gone.id AND l.inbox_seq IS NOT NULL
                    AND NOT l.inbox_acknowledged;
                RETURN NULL;
            END
            $$
            """,
        ]),
        Migration(identifier: "v11: the fire log's device indexes: bytewise keys, history and inbox apart", statements: [
            // A firing held in its inbox was an entry in both device indexes: history (every row)
            // and inbox (the rows held and not acknowledged). Now each row is in one of them,
            // and a device's rows are the two read together; a burst to inboxes writes one
            // device entry per firing, not two.
            "DROP INDEX delivery_by_device",
            // Under a linguistic collation every comparison on the way down an index calls
            // strcoll: about a sixth of a claim's cost in PostgreSQL. Ids are matched, never
            // sorted for people. Compared with other tables' ids (the database default) or with
            // parameters they resolve to "C" (a column's own collation wins), so the indexes
            // rebuilt here still serve those reads.
            """
            ALTER TABLE delivery ALTER COLUMN app_id TYPE text COLLATE "C",
                ALTER COLUMN device_id TYPE text COLLATE "C"
            """,
            """
            CREATE INDEX delivery_history ON delivery (app_id, device_id, key)
                WHERE inbox_seq IS NULL OR inbox_acknowledged
            """,
        ]),
    ]

    /// Applies the migrations not yet applied, holding the advisory lock on one connection.
    /// Returns the identifiers it applied.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws -> [String] {
        try await client.withConnection { connection in
            try await migrate(on: connection, through: migrations.count, logger: logger)
        }
    }

    /// A migration identifier that names none of ``migrations``.
    struct UnknownMigration: Error, CustomStringConvertible {
        var identifier: String
        var description: String { "no PostgreSQL migration is named '\(identifier)'" }
    }

    /// Applies the migrations not yet applied up to and including the one named `last`, and none
    /// after it, over one connection to `location`: how a test builds a database at an earlier
    /// schema version, to see the later migrations upgrade it. Returns the identifiers it applied.
    static func migrate(_ location: PostgresLocation, upTo last: String, logger: Logger) async throws -> [String] {
        guard let index = migrations.firstIndex(where: { $0.identifier == last }) else {
            throw UnknownMigration(identifier: last)
        }
        let connection = try await PostgresConnection.connect(configuration: location.connectionConfiguration, id: 0,
                                                              logger: logger)
        do {
            let applied = try await migrate(on: connection, through: index + 1, logger: logger)
            try await connection.close()
            return applied
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Applies the first `count` migrations not yet applied, under the advisory lock.
    private static func migrate(on connection: PostgresConnection, through count: Int,
                                logger: Logger) async throws -> [String] {
        // A migration may wait for another node's, or for live traffic: not under the
        // session's timeouts, which are set back before the connection returns to the pool.
        for setting in ["statement_timeout", "lock_timeout"] {
            try await connection.query("SELECT set_config(\(setting), '0', false)", logger: logger)
        }
        try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
        do {
            let applied = try await apply(on: connection, through: count, logger: logger)
            try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
            try await connection.query("RESET ALL", logger: logger)
            return applied
        } catch {
            // Closing the session would release it too; unlock so the connection goes back clean.
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
            _ = try? await connection.query("RESET ALL", logger: logger)
            throw error
        }
    }

    private static func apply(on connection: PostgresConnection, through count: Int, logger: Logger) async throws -> [String] {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS herald_migrations (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        var done: Set<String> = []
        for try await identifier in try await connection.query("SELECT identifier FROM herald_migrations", logger: logger)
            .decode(String.self) {
            done.insert(identifier)
        }
        var applied: [String] = []
        for migration in migrations.prefix(count) where !done.contains(migration.identifier) {
            try await connection.withTransaction(logger: logger) { connection in
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO herald_migrations (identifier) VALUES (\(migration.identifier))",
                                           logger: logger)
            }
            logger.info("applied migration", metadata: ["migration": "\(migration.identifier)"])
            applied.append(migration.identifier)
        }
        return applied
    }
}
