import Foundation
import HeraldStorage

/// The storage floor for fire throughput: the same durable work per occurrence done straight on
/// SQLite, in the same schema, file mode (WAL, synchronous = NORMAL) and batch size as the engine.
/// Per occurrence: read its row by key, insert its fire-log row (the delivery, with the content
/// and the unique occurrence), then delete the one-shot or advance the repeating one (guarded
/// by revision); one transaction per batch.
enum StorageFloor {
    static func occurrencesPerSecond(count: Int, devices: Int, batch: Int, scratch: String) async throws -> Double {
        let directory = try ScratchDirectory(under: scratch, name: "storage-floor")
        defer { directory.remove() }
        let due = Date().millisecondsSince1970 + 86_400_000
        // Build with the real store so the schema is the one herald uses, then let it close.
        try await prepare(directory.path, count: count, devices: devices, due: due)

        let database = try RawSQLite(path: Fixtures.databasePath(in: directory.path))
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        var keys: [Int64] = []
        let list = try database.prepare("SELECT key FROM notification ORDER BY next_fire_at, key")
        while try list.step() { keys.append(list.int64(0)) }

        let read = try database.prepare("""
            SELECT key, repeat_unit IS NULL, revision, next_index, next_fire_at, content FROM notification WHERE key = ?
            """)
        // The fire-log row as the claim writes it: with the content and the unique occurrence.
        let insert = try database.prepare("""
            INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                missed, channel, outcome, content, notification_key, generation, occurrence_index)
            SELECT ?1, 'bench.app', ?2, ?3, ?4, ?5, 0, 0, 'pending', 'pending', content, key, generation, next_index
            FROM notification WHERE key = ?6
            """)
        let remove = try database.prepare("DELETE FROM notification WHERE key = ? AND revision = ?")
        let advance = try database.prepare("""
            UPDATE notification SET next_index = ?, next_fire_at = ? WHERE key = ? AND revision = ?
            """)

        let stopwatch = Stopwatch()
        var start = 0
        while start < keys.count {
            let end = min(start + batch, keys.count)
            try database.execute("BEGIN IMMEDIATE")
            let now = Date().millisecondsSince1970
            for key in keys[start..<end] {
                read.bind(key)
                guard try read.step() else { continue }
                let oneShot = read.int64(1) != 0, revision = read.int64(2)
                let index = read.int64(3), fireAt = read.int64(4)
                _ = read.textLength(5)
                read.reset()
                insert.bind(key &* 1000 &+ index, key, key, fireAt, now, key)
                _ = try insert.step()
                if oneShot {
                    remove.bind(key, revision)
                    _ = try remove.step()
                } else {
                    advance.bind(index + 1, fireAt + 86_400_000, key, revision)
                    _ = try advance.step()
                }
            }
            try database.execute("COMMIT")
            start = end
        }
        return Double(keys.count) / stopwatch.seconds
    }

    private static func prepare(_ directory: String, count: Int, devices: Int, due: Int64) async throws {
        let store = try await Fixtures.prepare(in: directory, count: count, devices: devices) { _ in due }
        withExtendedLifetime(store) {}
    }
}
