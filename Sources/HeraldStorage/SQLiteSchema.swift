import GRDB

extension SQLiteStore {
    /// Schema migrations, applied in order at open. Add a new one; never edit a shipped one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: apps, devices, notifications, deliveries") { db in
            try db.execute(sql: """
                CREATE TABLE app (
                    id TEXT PRIMARY KEY,
                    overflow TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE TABLE device (
                    app_id TEXT NOT NULL REFERENCES app(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    time_zone TEXT NOT NULL,
                    token TEXT,
                    voip_token TEXT,
                    locale TEXT,
                    state TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, id)
                ) WITHOUT ROWID;
                -- AUTOINCREMENT: a key is never reused, so a stale timer entry can never point at
                -- a newer notification.
                CREATE TABLE notification (
                    key INTEGER PRIMARY KEY AUTOINCREMENT,
                    app_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    id TEXT NOT NULL,
                    fire_date TEXT NOT NULL,
                    time_zone TEXT,
                    repeat_unit TEXT,
                    repeat_every INTEGER,
                    repeat_count INTEGER,
                    repeat_until INTEGER,
                    content TEXT NOT NULL,
                    next_index INTEGER NOT NULL,
                    next_fire_at INTEGER NOT NULL,
                    revision INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    UNIQUE (app_id, device_id, id),
                    FOREIGN KEY (app_id, device_id) REFERENCES device(app_id, id) ON DELETE CASCADE
                );
                CREATE INDEX notification_by_device ON notification(app_id, device_id, next_fire_at);
                CREATE TABLE delivery (
                    key INTEGER PRIMARY KEY AUTOINCREMENT,
                    occurrence_id TEXT NOT NULL,
                    app_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    notification_id TEXT NOT NULL,
                    scheduled_for INTEGER NOT NULL,
                    fired_at INTEGER NOT NULL,
                    late INTEGER NOT NULL,
                    missed INTEGER NOT NULL,
                    channel TEXT NOT NULL,
                    outcome TEXT NOT NULL
                );
                CREATE INDEX delivery_by_device ON delivery(app_id, device_id, key);
                CREATE INDEX delivery_pending ON delivery(outcome) WHERE outcome = 'pending';
                """)
        }
        migrator.registerMigration("v2: push settings, invalid tokens, feedback outbox, APNs outcomes") { db in
            try db.execute(sql: """
                ALTER TABLE app ADD COLUMN push TEXT;
                ALTER TABLE delivery ADD COLUMN apns_status INTEGER;
                ALTER TABLE delivery ADD COLUMN apns_id TEXT;
                CREATE TABLE invalid_token (
                    app_id TEXT NOT NULL,
                    token TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    apns_timestamp INTEGER,
                    invalidated_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, token)
                ) WITHOUT ROWID;
                CREATE TABLE feedback_event (
                    key INTEGER PRIMARY KEY AUTOINCREMENT,
                    type TEXT NOT NULL,
                    app_id TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3: lifecycle, coalesced event queues, device inboxes") { db in
            try db.execute(sql: """
                ALTER TABLE device ADD COLUMN background_modes TEXT NOT NULL DEFAULT '';
                ALTER TABLE app ADD COLUMN custom_kinds TEXT;
                -- One row per device with a backlog or a memory of what it last received: bounded
                -- by kinds and keys, never by the number of events.
                CREATE TABLE device_events (
                    app_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    queue TEXT NOT NULL,
                    wake_pushes TEXT NOT NULL DEFAULT '[]',
                    PRIMARY KEY (app_id, device_id),
                    FOREIGN KEY (app_id, device_id) REFERENCES device(app_id, id) ON DELETE CASCADE
                ) WITHOUT ROWID;
                -- Local notifications held for a device with no channel, delivered on wake.
                CREATE TABLE device_inbox (
                    key INTEGER PRIMARY KEY AUTOINCREMENT,
                    app_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    occurrence_id TEXT NOT NULL,
                    notification_id TEXT NOT NULL,
                    scheduled_for INTEGER NOT NULL,
                    fired_at INTEGER NOT NULL,
                    late INTEGER NOT NULL,
                    missed INTEGER NOT NULL,
                    content TEXT NOT NULL,
                    FOREIGN KEY (app_id, device_id) REFERENCES device(app_id, id) ON DELETE CASCADE
                );
                CREATE INDEX device_inbox_by_device ON device_inbox(app_id, device_id, key);
                """)
        }
        migrator.registerMigration("v4: inbound hooks, idempotency keys, feedback outbox") { db in
            try db.execute(sql: """
                CREATE TABLE hook (
                    name TEXT PRIMARY KEY,
                    definition TEXT NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE TABLE idempotency (
                    hook TEXT NOT NULL,
                    key TEXT NOT NULL,
                    state TEXT NOT NULL,
                    response TEXT,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (hook, key)
                ) WITHOUT ROWID;
                CREATE TABLE outbox (
                    key INTEGER PRIMARY KEY AUTOINCREMENT,
                    event_key INTEGER NOT NULL,
                    url TEXT NOT NULL,
                    type TEXT NOT NULL,
                    body TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    last_error TEXT,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX outbox_due ON outbox(state, next_attempt_at);
                CREATE TABLE feedback_cursor (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    last_event_key INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v5: token registrations, feedback cursors per receiver, retention indexes") { db in
            try db.execute(sql: """
                -- When a device last reported each token: a 410 whose timestamp is older does not
                -- kill a token the device registered again since.
                CREATE TABLE token_registration (
                    app_id TEXT NOT NULL,
                    token TEXT NOT NULL,
                    registered_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, token)
                ) WITHOUT ROWID;
                INSERT OR IGNORE INTO token_registration (app_id, token, registered_at)
                    SELECT app_id, token, max(updated_at) FROM device WHERE token IS NOT NULL GROUP BY app_id, token
                    UNION ALL
                    SELECT app_id, voip_token, max(updated_at) FROM device WHERE voip_token IS NOT NULL GROUP BY app_id, voip_token;
                -- Each receiver reads the feedback events at its own pace: one that is down or
                -- full holds back only itself.
                CREATE TABLE feedback_receiver (
                    url TEXT PRIMARY KEY,
                    last_event_key INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX outbox_by_receiver ON outbox(url, state);
                CREATE INDEX delivery_by_fired_at ON delivery(fired_at);
                CREATE INDEX feedback_event_by_created_at ON feedback_event(created_at);
                CREATE INDEX idempotency_by_created_at ON idempotency(created_at);
                """)
        }
        migrator.registerMigration("v6: the fire log, claims by instant, one inbox item per firing") { db in
            try db.execute(sql: """
                -- A replace starts a new generation: its occurrences are new firings, even with the
                -- same index; an advance or a re-time keeps the generation.
                ALTER TABLE notification ADD COLUMN generation INTEGER NOT NULL DEFAULT 1;
                CREATE INDEX notification_due ON notification(next_fire_at);
                -- The delivery table is the fire log: each firing carries the content to deliver,
                -- so delivery never needs the notification row again, and is unique per
                -- (notification, generation, index), so nothing fires twice.
                ALTER TABLE delivery ADD COLUMN content TEXT;
                ALTER TABLE delivery ADD COLUMN notification_key INTEGER;
                ALTER TABLE delivery ADD COLUMN generation INTEGER;
                ALTER TABLE delivery ADD COLUMN occurrence_index INTEGER;
                CREATE UNIQUE INDEX delivery_occurrence ON delivery(notification_key, generation, occurrence_index)
                    WHERE notification_key IS NOT NULL;
                -- An inbox holds each firing once, however often it is handed over.
                ALTER TABLE device_inbox ADD COLUMN delivery_key INTEGER;
                CREATE UNIQUE INDEX device_inbox_by_delivery ON device_inbox(delivery_key) WHERE delivery_key IS NOT NULL;
                """)
        }
        migrator.registerMigration("v7: no fired_at index on the fire log (it slowed every firing)") { db in
            try db.execute(sql: "DROP INDEX IF EXISTS delivery_by_fired_at")
        }
        migrator.registerMigration("v8: no second per-device index on notifications") { db in
            // UNIQUE (app_id, device_id, id) already serves every per-device read (at most 128
            // rows, sorted in memory); this one only cost every schedule, firing and advance.
            try db.execute(sql: "DROP INDEX IF EXISTS notification_by_device")
        }
        migrator.registerMigration("v9: the coalesced backlog stays until its hand-over is acknowledged") { db in
            try db.execute(sql: """
                -- While a hand-over waits for its acknowledgement: the backlog as of the last
                -- acknowledged one, with every event since, and the waiting hand-over's id.
                ALTER TABLE device_events ADD COLUMN unacknowledged TEXT;
                ALTER TABLE device_events ADD COLUMN handed_seq INTEGER;
                """)
        }
        migrator.registerMigration("v10: outbox messages leased per attempt, under a token") { db in
            try db.execute(sql: """
                ALTER TABLE outbox ADD COLUMN lease_until INTEGER;
                ALTER TABLE outbox ADD COLUMN lease_token TEXT;
                """)
        }
        migrator.registerMigration("v11: acknowledged inbox items stay as tombstones while their firing is pending") { db in
            try db.execute(sql: """
                -- A firing handed over again after its item was acknowledged (a retry after a lost
                -- reply) finds the item and is not held, and so not handed over, a second time.
                ALTER TABLE device_inbox ADD COLUMN acknowledged INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v12: live system events kept until acknowledged") { db in
            try db.execute(sql: "ALTER TABLE device_events ADD COLUMN live_events TEXT")
        }
        migrator.registerMigration("v13: platforms: FCM and Web Push addresses on devices, their settings on apps") { db in
            try db.execute(sql: """
                ALTER TABLE device ADD COLUMN platform TEXT NOT NULL DEFAULT 'ios';
                ALTER TABLE device ADD COLUMN fcm_token TEXT;
                ALTER TABLE device ADD COLUMN web_push TEXT;
                ALTER TABLE app ADD COLUMN fcm TEXT;
                ALTER TABLE app ADD COLUMN web_push TEXT;
                """)
        }
        migrator.registerMigration("v14: Live Activity tokens on devices; broadcast channels as audiences") { db in
            try db.execute(sql: """
                ALTER TABLE device ADD COLUMN push_to_start_tokens TEXT;
                ALTER TABLE device ADD COLUMN activities TEXT;
                ALTER TABLE device ADD COLUMN broadcast_channel TEXT;
                """)
        }
        migrator.registerMigration("v15: an inbox item is its fire-log row, not a copy of it") { db in
            try db.execute(sql: """
                -- Held in the inbox: the hand-over id the device acknowledges (from the one series
                -- shared with backlog hand-overs), and whether it did. A firing is written once:
                -- holding it sets two columns instead of copying the row and its content.
                ALTER TABLE delivery ADD COLUMN inbox_seq INTEGER;
                ALTER TABLE delivery ADD COLUMN inbox_acknowledged INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX delivery_inbox ON delivery(app_id, device_id, inbox_seq)
                    WHERE inbox_seq IS NOT NULL AND inbox_acknowledged = 0;
                -- The series, out of sqlite_sequence: it outlives the table whose counter it was.
                CREATE TABLE hand_over_sequence (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
                INSERT INTO hand_over_sequence (id, value) SELECT 1, max(
                    coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'device_inbox'), 0),
                    coalesce((SELECT max(key) FROM device_inbox), 0));
                UPDATE delivery SET inbox_seq = i.key, inbox_acknowledged = i.acknowledged, content = coalesce(delivery.content, i.content)
                    FROM device_inbox i WHERE i.delivery_key = delivery.key;
                -- Items whose fire-log row is gone (or never was) become rows of their own.
                INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                    missed, channel, outcome, content, inbox_seq, inbox_acknowledged)
                    SELECT occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late, missed,
                        'inbox', 'held', content, key, acknowledged
                    FROM device_inbox i WHERE i.delivery_key IS NULL
                        OR NOT EXISTS (SELECT 1 FROM delivery l WHERE l.key = i.delivery_key);
                DROP TABLE device_inbox;
                -- A deleted device (or app) takes its inbox with it; the firings stay as history.
                CREATE TRIGGER device_inbox_gone AFTER DELETE ON device BEGIN
                    UPDATE delivery SET inbox_acknowledged = 1
                    WHERE app_id = OLD.app_id AND device_id = OLD.id AND inbox_seq IS NOT NULL AND inbox_acknowledged = 0;
                END;
                """)
        }
        migrator.registerMigration("v16: a device's pending version, moved by every schedule written for it") { db in
            try db.execute(sql: "ALTER TABLE device ADD COLUMN pending_version INTEGER NOT NULL DEFAULT 0")
        }
        return migrator
    }
}
