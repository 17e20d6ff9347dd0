import Foundation
import HeraldCoalescer
import HeraldCore
import HeraldDelivery
import HeraldPush
import HeraldScheduler
import HeraldStorage
import Logging
import Synchronization

/// Issue 23's SQLite burst row: `burst` one-shots due at one instant, delivered to their devices'
/// inboxes by the real path, beside a bare SQLite loop doing the claim's durable work in batches
/// of 1,000; then what each writes per occurrence.
///
/// Each side runs twice on fresh data of the same size: once timed, with nothing installed, and
/// once counted, with a ``SQLiteWriteCounter`` on its connections and a ``CheckpointWatch`` on its
/// WAL index. Counting costs time per statement, so it never runs in the timed pass.
enum SQLiteBurstBenchmark {
    static let goalRatio = 0.75
    /// The size issue 23 states the goal at.
    static let goalSize = 100_000

    static func run(_ options: Options) async throws -> [ResultRow] {
        let count = options.burst
        progress("sqlite-burst: Herald, \(Format.grouped(count)) one-shots due at one instant (timed)")
        let herald = try await HeraldBurst.run(count: count, scratch: options.scratch, counted: false)
        progress("sqlite-burst: bare loop, \(Format.grouped(count)) occurrences (timed)")
        let bare = try await BareBurstLoop.run(count: count, scratch: options.scratch, counted: false)
        progress("sqlite-burst: Herald again, counting writes")
        let heraldCounted = try await HeraldBurst.run(count: count, scratch: options.scratch, counted: true)
        progress("sqlite-burst: bare loop again, counting writes")
        let bareCounted = try await BareBurstLoop.run(count: count, scratch: options.scratch, counted: true)

        let heraldRate = Double(count) / herald.seconds
        let bareRate = Double(count) / bare.seconds
        progress(String(format: "sqlite-burst: Herald %.3f s from the instant to the last outcome (inboxes complete at %.3f s; "
                        + "counted pass %.3f s); bare loop %.3f s (counted pass %.3f s)",
                        herald.seconds, herald.inboxSeconds, heraldCounted.seconds, bare.seconds, bareCounted.seconds))
        let label = "SQLite burst: \(Format.count(count)) due at one instant, inbox delivery"
        var rows = [ResultRow(
            benchmark: label,
            measured: "\(Format.rate(heraldRate, unit: "occ/s")) (instant → last outcome stored)",
            reference: "\(Format.rate(bareRate, unit: "occ/s")) bare SQLite loop (claim + fire-log row + delete, batches of 1,000)",
            ratio: heraldRate / bareRate, goal: "≥ \(String(format: "%.2f", goalRatio))× the bare loop",
            met: count >= goalSize ? heraldRate / bareRate >= goalRatio : nil)]
        if let heraldWrites = heraldCounted.writes, let bareWrites = bareCounted.writes {
            rows += WriteCountRows.rows(label: label, herald: heraldWrites, bare: bareWrites)
        }
        return rows
    }
}

/// What one side wrote over the whole burst, as counted in its counted pass.
struct BurstWrites {
    var occurrences: Int
    var counts: SQLiteWriteCounter.Counts
    /// Indexes per table (besides the table's own b-tree), from `PRAGMA index_list`.
    var indexes: [String: Int]
    /// Checkpoints that copied frames, seen on the WAL index.
    var checkpoints: Int

    /// Σ over tables of rows written × (1 + the table's indexes). An estimate: an UPDATE touches
    /// only the indexes holding a column it changes (two entries each: old and new), and a
    /// partial index only the rows it holds.
    var indexEntries: Int {
        counts.rowsByTable.reduce(0) { $0 + $1.value * (1 + (indexes[$1.key] ?? 0)) }
    }
}

/// The per-occurrence rows, Herald beside the bare loop, and a breakdown on stderr.
enum WriteCountRows {
    static func rows(label: String, herald: BurstWrites, bare: BurstWrites) -> [ResultRow] {
        breakdown("Herald", herald)
        breakdown("bare loop", bare)
        func row(_ name: String, _ measured: Int, _ reference: Int, extra: String = "") -> ResultRow {
            let m = Double(measured) / Double(herald.occurrences)
            let r = Double(reference) / Double(bare.occurrences)
            return ResultRow(benchmark: "\(label): \(name) per occurrence",
                             measured: "\(perOccurrence(m)) (\(Format.grouped(measured)) in all\(extra))",
                             reference: "\(perOccurrence(r)) bare loop (\(Format.grouped(reference)) in all)",
                             ratio: r > 0 ? m / r : nil)
        }
        return [
            row("statements (writer connection)", herald.counts.statements, bare.counts.statements,
                extra: "; +\(Format.grouped(herald.counts.readerStatements)) on reader connections"),
            row("transactions committed", herald.counts.transactions, bare.counts.transactions),
            row("rows written (inserted + updated + deleted)", herald.counts.rowsWritten, bare.counts.rowsWritten),
            row("index entries touched (rows × (1 + indexes), estimate)", herald.indexEntries, bare.indexEntries),
            row("WAL frames (pages) written", herald.counts.pagesWritten, bare.counts.pagesWritten),
            ResultRow(benchmark: "\(label): fsyncs per occurrence (WAL + synchronous=NORMAL: none at commit)",
                      measured: "\(perOccurrence(2 * Double(herald.checkpoints) / Double(herald.occurrences))) "
                          + "(≤ 2 × \(herald.checkpoints) checkpoints, on the store's checkpointer)",
                      reference: "\(perOccurrence(2 * Double(bare.checkpoints) / Double(bare.occurrences))) bare loop "
                          + "(≤ 2 × \(bare.checkpoints) checkpoints, auto-checkpoint in its commits)",
                      ratio: bare.checkpoints > 0 ? (Double(herald.checkpoints) / Double(herald.occurrences))
                          / (Double(bare.checkpoints) / Double(bare.occurrences)) : nil),
        ]
    }

    static func perOccurrence(_ value: Double) -> String {
        value >= 10 ? String(format: "%.2f", value) : String(format: "%.4f", value)
    }

    /// Progress only: statements by SQL and rows by table, per occurrence.
    static func breakdown(_ side: String, _ writes: BurstWrites) {
        let n = Double(writes.occurrences)
        progress("sqlite-burst: \(side), per occurrence, statements by SQL (multi-row VALUES lists shown as (…)):")
        var bySQL: [String: Int] = [:]
        for (sql, runs) in writes.counts.statementsBySQL { bySQL[collapsed(sql), default: 0] += runs }
        for (sql, runs) in bySQL.sorted(by: { $0.value > $1.value }) {
            progress(String(format: "  %9.4f  ", Double(runs) / n) + sql.prefix(160))
        }
        let tables = writes.counts.rowsByTable.sorted(by: { $0.key < $1.key }).map {
            "\($0.key) " + String(format: "%.4f", Double($0.value) / n) + " (1 + \(writes.indexes[$0.key] ?? 0) indexes)"
        }
        progress("sqlite-burst: \(side), rows written per occurrence by table: \(tables.joined(separator: ", "))")
    }

    /// The SQL with each list of parameter tuples, `(?, ?), (?, ?), …`, as `(…)`, so statements
    /// that differ only in how many rows they carry are one line.
    static func collapsed(_ sql: String) -> String {
        sql.replacingOccurrences(of: #"\(\?(, \?)*\)(, \(\?(, \?)*\))*"#, with: "(…)", options: .regularExpression)
    }

    /// Indexes of each of `tables` in the database at `path`, from `PRAGMA index_list`; a
    /// WITHOUT ROWID table's primary key is its own b-tree, so not counted as an index.
    static func indexCounts(path: String, tables: some Sequence<String>) throws -> [String: Int] {
        let database = try RawSQLite(path: path, readOnly: true)
        var counts: [String: Int] = [:]
        for table in tables {
            let schema = try database.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?")
            schema.bind(values: [.text(table)])
            let withoutRowID = try schema.step() && schema.text(0).uppercased().contains("WITHOUT ROWID")
            schema.reset()
            let list = try database.prepare("SELECT origin FROM pragma_index_list(?)")
            list.bind(values: [.text(table)])
            var indexes = 0
            while try list.step() {
                if !(withoutRowID && list.text(0) == "pk") { indexes += 1 }
            }
            counts[table] = indexes
        }
        return counts
    }
}

// MARK: Herald

/// Herald's side: the real `SQLiteStore`, `SchedulerEngine`, `DeliveryDispatcher` and
/// `DeviceRouter`, wired as `HeraldServer` wires them, on one-shots to devices without a token
/// of an app without push settings, so every firing is held in its device's inbox.
enum HeraldBurst {
    struct Result {
        /// From the instant to when the last outcome was stored.
        var seconds: Double
        /// From the instant to when the last inbox item was stored.
        var inboxSeconds: Double
        var writes: BurstWrites?
    }

    static func run(count: Int, scratch: String, counted: Bool) async throws -> Result {
        let devices = FiringBenchmark.devices(for: count)
        var lead = 2.0 + Double(count) * 40e-6
        for _ in 0..<4 {
            let directory = try ScratchDirectory(under: scratch, name: "sqlite-burst-herald")
            defer { directory.remove() }
            let counter = counted ? SQLiteWriteCounter() : nil
            let instant = FiringBenchmark.nextWholeSecond(after: lead)
            let store = try await Fixtures.prepareOneShots(in: directory.path, count: count, devices: devices,
                                                           writeCounter: counter) { _ in instant }
            var logger = Logger(label: "herald.bench.sqlite-burst")
            logger.logLevel = .warning
            let watched = WatchedDeliveryStore(store: store, expected: count)
            let gateway = PushGateway(ledger: StoredTokenLedger(store: store), logger: logger)
            let router = DeviceRouter(streams: LiveStreams(logger: logger),
                                      push: PushDeliveryChannel(gateway: gateway, store: watched),
                                      ledger: StoredTokenLedger(store: watched), store: watched)
            let dispatcher = DeliveryDispatcher(store: watched, channel: router, logger: logger)
            let engine = SchedulerEngine(store: watched, channel: router, dispatcher: dispatcher, clock: SystemClock(),
                                         logger: logger)
            try await engine.load()
            let start = Date(millisecondsSince1970: instant)
            guard start.timeIntervalSinceNow > 0.25 else {
                await gateway.shutdown()
                progress(String(format: "sqlite-burst: preparation left only %.2f s before the instant; retrying with a longer lead",
                                start.timeIntervalSinceNow))
                lead *= 2
                continue
            }
            // The store's checkpointer has had the lead to copy the preparation's WAL; what is
            // counted from here is the burst's.
            let watch = counted ? CheckpointWatch(databasePath: store.path) : nil
            counter?.reset()
            let running = Task { try await engine.run() }
            let deadline = start.addingTimeInterval(60 + Double(count) * 1e-3)
            while !watched.complete, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let counts = counter?.counts
            let checkpoints = await watch?.stop() ?? 0
            running.cancel()
            _ = try? await running.value
            await gateway.shutdown()
            guard let finished = watched.lastOutcomeAt, let held = watched.lastHeldAt else {
                throw OptionsError("sqlite-burst: Herald stored \(watched.outcomes) of \(count) outcomes before the deadline")
            }
            try HeraldBurst.verify(path: store.path, count: count)
            var writes: BurstWrites?
            if let counts {
                writes = BurstWrites(occurrences: count, counts: counts,
                                     indexes: try WriteCountRows.indexCounts(path: store.path, tables: counts.rowsByTable.keys),
                                     checkpoints: checkpoints)
            }
            withExtendedLifetime(store) {}
            return Result(seconds: finished.timeIntervalSince(start), inboxSeconds: held.timeIntervalSince(start),
                          writes: writes)
        }
        throw OptionsError("sqlite-burst: could not prepare the data set ahead of its instant")
    }

    /// Exactly `count` inbox items, `count` fire-log rows all held, no notification left.
    static func verify(path: String, count: Int) throws {
        let database = try RawSQLite(path: path, readOnly: true)
        func number(_ sql: String) throws -> Int {
            let statement = try database.prepare(sql)
            _ = try statement.step()
            defer { statement.reset() }
            return Int(statement.int64(0))
        }
        // Each inbox item is its firing's fire-log row.
        let inbox = try number("SELECT count(*) FROM delivery WHERE inbox_seq IS NOT NULL AND inbox_acknowledged = 0")
        let logged = try number("SELECT count(*) FROM delivery")
        let held = try number("SELECT count(*) FROM delivery WHERE outcome = 'held'")
        let left = try number("SELECT count(*) FROM notification")
        guard inbox == count, logged == count, held == count, left == 0 else {
            throw OptionsError("sqlite-burst: Herald left \(inbox) inbox items, \(logged) fire-log rows of which \(held) held, "
                               + "and \(left) notifications; expected \(count), \(count), \(count) and 0")
        }
    }
}

/// The store as the engine, the dispatcher and the router see it: every call forwarded
/// unchanged, and the moment the last outcome (and the last inbox item) was stored noted, so the
/// benchmark stops the clock there without polling the database. A firing the claim held itself
/// counts as both at the claim's commit.
struct WatchedDeliveryStore: SchedulerStore, DeliveryStore {
    let store: SQLiteStore
    private let progress: Progress

    private final class Progress: Sendable {
        struct State {
            var outcomes = 0
            var held = 0
            var lastOutcomeAt: Date?
            var lastHeldAt: Date?
        }
        let expected: Int
        let state = Mutex(State())
        init(expected: Int) { self.expected = expected }
    }

    init(store: SQLiteStore, expected: Int) {
        self.store = store
        progress = Progress(expected: expected)
    }

    var outcomes: Int { progress.state.withLock { $0.outcomes } }
    var complete: Bool { progress.state.withLock { $0.lastOutcomeAt != nil } }
    var lastOutcomeAt: Date? { progress.state.withLock { $0.lastOutcomeAt } }
    var lastHeldAt: Date? { progress.state.withLock { $0.lastHeldAt } }

    func timerEntries() async throws -> [TimerEntry] { try await store.timerEntries() }

    func claimDue(from: Date?, until: Date, firedAt: Date, limit: Int, holding: InboxOnlyRule?,
                  decide: @escaping @Sendable (DueNotification) -> FiringDecision) async throws -> FiringClaim {
        let claim = try await store.claimDue(from: from, until: until, firedAt: firedAt, limit: limit, holding: holding,
                                             decide: decide)
        noteStored(outcomes: claim.heldInInbox.count, held: claim.heldInInbox.count)
        return claim
    }

    private func noteStored(outcomes: Int, held: Int) {
        guard outcomes > 0 || held > 0 else { return }
        let now = Date()
        let expected = progress.expected
        progress.state.withLock { state in
            state.outcomes += outcomes
            state.held += held
            if state.outcomes >= expected, state.lastOutcomeAt == nil { state.lastOutcomeAt = now }
            if state.held >= expected, state.lastHeldAt == nil { state.lastHeldAt = now }
        }
    }

    func app(id: String) async throws -> App? { try await store.app(id: id) }

    func unfinishedFirings() async throws -> (fired: [FiredOccurrence], orphaned: [Int64]) {
        try await store.unfinishedFirings()
    }

    func recordDeliveries(_ deliveries: [Delivery]) async throws { try await store.recordDeliveries(deliveries) }

    func completeDeliveries(_ outcomes: [CompletedDelivery]) async throws {
        try await store.completeDeliveries(outcomes)
        noteStored(outcomes: outcomes.count, held: 0)
    }

    @discardableResult
    func holdInInbox(_ items: [InboxItem], _ hold: InboxHold) async throws -> [Int64?] {
        let sequences = try await store.holdInInbox(items, hold)
        // Before streaming, the outcome is stored later, by `completeDeliveries`.
        noteStored(outcomes: 0, held: hold == .final ? items.count : 0)
        return sequences
    }

    func recordFeedback(_ events: [FeedbackEvent]) async throws { try await store.recordFeedback(events) }

    @discardableResult
    func invalidateToken(_ invalid: InvalidToken, feedback: FeedbackEvent) async throws -> Bool {
        try await store.invalidateToken(invalid, feedback: feedback)
    }

    func invalidToken(appID: String, token: String) async throws -> InvalidToken? {
        try await store.invalidToken(appID: appID, token: token)
    }

    func invalidTokens(appID: String, among tokens: Set<String>) async throws -> Set<String> {
        try await store.invalidTokens(appID: appID, among: tokens)
    }
}

// MARK: The bare loop

/// The reference: the claim's durable work straight on the SQLite C API, the floor under
/// Herald's burst.
///
/// On a database prepared through the real `SQLiteStore` (Herald's tables and indexes, the same
/// one-shots), closed before the loop opens it with one connection set as Herald's writer (WAL,
/// `synchronous = NORMAL`, a 64 MiB page cache, auto-checkpoint at 16,384 pages, foreign keys on)
/// and its WAL emptied into the database first (`wal_checkpoint(TRUNCATE)`, untimed), it repeats, with prepared statements, one `BEGIN IMMEDIATE … COMMIT` per batch:
/// 1. read the next 1,000 due rows by fire time (`SELECT key, app_id, device_id, id, content,
///    generation, next_index, next_fire_at FROM notification WHERE next_fire_at <= ? ORDER BY
///    next_fire_at LIMIT 1000`, walking the `notification_due` index), copying each into Swift
///    values, content included;
/// 2. per row, insert its fire-log row into `delivery`: the columns the claim writes (occurrence
///    id `<id>#<index>`, app, device, notification id, instant, fired at, late, missed, channel
///    and outcome `pending`, the content, and the unique (notification_key, generation,
///    occurrence_index) key, `ON CONFLICT DO NOTHING`);
/// 3. per row, delete the one-shot by key.
///
/// It does not: join the device, decide each occurrence (late, missed, the next one) or advance
/// repeating ones (there are none), hand anything to delivery, write an inbox item, or store an
/// outcome. It is the floor: every firing needs at least these writes, and the row shows what
/// Herald's claim, inbox delivery and outcome writes cost above it.
enum BareBurstLoop {
    static let batch = 1_000

    struct Result {
        var seconds: Double
        var writes: BurstWrites?
    }

    static func run(count: Int, scratch: String, counted: Bool) async throws -> Result {
        let directory = try ScratchDirectory(under: scratch, name: "sqlite-burst-bare")
        defer { directory.remove() }
        let due = Date().millisecondsSince1970 + 86_400_000
        try await prepare(directory.path, count: count, due: due)
        let path = Fixtures.databasePath(in: directory.path)

        let database = try RawSQLite(path: path)
        for pragma in ["journal_mode = WAL", "synchronous = NORMAL", "cache_size = -65536", "wal_autocheckpoint = 16384",
                       "foreign_keys = ON"] {
            try database.execute("PRAGMA \(pragma)")
        }
        // Start, as Herald's side does after its lead time, with the preparation's WAL copied
        // into the database, so the loop's checkpoints copy only its own frames.
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let counter = counted ? SQLiteWriteCounter() : nil
        counter?.install(on: database.connection, role: .writer)
        let select = try database.prepare("""
            SELECT key, app_id, device_id, id, content, generation, next_index, next_fire_at FROM notification
            WHERE next_fire_at <= ? ORDER BY next_fire_at LIMIT \(batch)
            """)
        let log = try database.prepare("""
            INSERT INTO delivery (occurrence_id, app_id, device_id, notification_id, scheduled_for, fired_at, late,
                missed, channel, outcome, content, notification_key, generation, occurrence_index)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 'pending', 'pending', ?8, ?9, ?10, ?11)
            ON CONFLICT DO NOTHING
            """)
        let remove = try database.prepare("DELETE FROM notification WHERE key = ?")
        let watch = counted ? CheckpointWatch(databasePath: path) : nil
        let indexBefore = counted ? WALIndexReading(path: path + "-shm") : nil

        let stopwatch = Stopwatch()
        var fired = 0
        while true {
            try database.execute("BEGIN IMMEDIATE")
            select.bind(values: [.int(due)])
            var rows: [DueRow] = []
            rows.reserveCapacity(batch)
            while try select.step() {
                rows.append(DueRow(key: select.int64(0), appID: select.text(1), deviceID: select.text(2),
                                   id: select.text(3), content: select.text(4), generation: select.int64(5),
                                   index: select.int64(6), fireAt: select.int64(7)))
            }
            select.reset()
            let firedAt = Date().millisecondsSince1970
            for row in rows {
                log.bind(values: [.text("\(row.id)#\(row.index)"), .text(row.appID), .text(row.deviceID), .text(row.id),
                                  .int(row.fireAt), .int(firedAt), .int(firedAt - row.fireAt > 1000 ? 1 : 0),
                                  .text(row.content), .int(row.key), .int(row.generation), .int(row.index)])
                _ = try log.step()
                remove.bind(row.key)
                _ = try remove.step()
            }
            try database.execute("COMMIT")
            fired += rows.count
            if rows.count < batch { break }
        }
        let seconds = stopwatch.seconds
        let counts = counter?.counts
        let checkpoints = await watch?.stop() ?? 0
        if let counts, checkpoints == 0, let before = indexBefore, let after = WALIndexReading(path: path + "-shm") {
            // A cross-check of the counted pages: with no checkpoint, the WAL grew by every frame
            // the loop wrote (or, restarted once at its first commit, holds only those).
            let frames = after.salt == before.salt ? Int(after.maxFrame) - Int(before.maxFrame) : Int(after.maxFrame)
            progress("sqlite-burst: bare loop's WAL index gained \(Format.grouped(frames)) frames; "
                     + "counted \(Format.grouped(counts.pagesWritten)) pages written")
        }
        guard fired == count else {
            throw OptionsError("sqlite-burst: the bare loop fired \(fired) of \(count)")
        }
        var writes: BurstWrites?
        if let counts {
            writes = BurstWrites(occurrences: count, counts: counts,
                                 indexes: try WriteCountRows.indexCounts(path: path, tables: counts.rowsByTable.keys),
                                 checkpoints: checkpoints)
        }
        withExtendedLifetime((database, counter)) {}
        return Result(seconds: seconds, writes: writes)
    }

    private struct DueRow {
        var key: Int64
        var appID: String
        var deviceID: String
        var id: String
        var content: String
        var generation: Int64
        var index: Int64
        var fireAt: Int64
    }

    /// The same data set as Herald's side, through the real store, which is closed on return.
    private static func prepare(_ directory: String, count: Int, due: Int64) async throws {
        let store = try await Fixtures.prepareOneShots(in: directory, count: count,
                                                       devices: FiringBenchmark.devices(for: count)) { _ in due }
        withExtendedLifetime(store) {}
    }
}

// MARK: Checkpoints

/// Counts WAL checkpoints that copied frames into the database, by reading the WAL index (the
/// `-shm` file every connection maps) every millisecond: its header's `mxFrame` and salt, and the
/// checkpoint record's `nBackfill`.
///
/// With WAL and `synchronous = NORMAL` a commit does not fsync; a checkpoint that copies frames
/// syncs the WAL before copying and the database file after, so at most 2 fsyncs each. A
/// checkpoint counts when `nBackfill` grows, or when the WAL restarted (salt changed) after one
/// that had not been seen. Two checkpoints between two readings count once, so this is a lower
/// bound on checkpoints; the store's checkpointer runs every 250 ms, far apart from the readings.
struct CheckpointWatch {
    private let task: Task<Int, Never>

    init(databasePath: String) {
        let path = databasePath + "-shm"
        task = Task.detached(priority: .high) {
            var last: WALIndexReading?
            var checkpoints = 0
            var reading = true
            while reading {
                reading = !Task.isCancelled
                if let now = WALIndexReading(path: path) {
                    if let last { checkpoints += now.checkpoints(since: last) }
                    last = now
                }
                if reading { try? await Task.sleep(for: .milliseconds(1)) }
            }
            return checkpoints
        }
    }

    /// Stops watching, after one last reading, and returns the checkpoints seen.
    func stop() async -> Int {
        task.cancel()
        return await task.value
    }
}

/// The WAL index fields a checkpoint changes (SQLite's wal.c layout: two copies of a 48-byte
/// header, then the checkpoint record), in the machine's byte order.
struct WALIndexReading {
    var salt: UInt32
    var maxFrame: UInt32
    var backfilled: UInt32

    init?(path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 100)
        guard pread(descriptor, &bytes, 100, 0) == 100,
              bytes[0..<48].elementsEqual(bytes[48..<96]),  // not torn by a writer mid-update
              bytes[12] == 1 else { return nil }  // isInit
        func word(_ offset: Int) -> UInt32 {
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        }
        salt = word(32)
        maxFrame = word(16)
        backfilled = word(96)
    }

    func checkpoints(since last: WALIndexReading) -> Int {
        if salt == last.salt { return backfilled > last.backfilled ? 1 : 0 }
        // Restarted: the old WAL was copied in full first; seen already only if it was complete.
        return (last.backfilled < last.maxFrame ? 1 : 0) + (backfilled > 0 ? 1 : 0)
    }
}
