import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// ``ScheduleStore`` on PostgreSQL: two prepared statements, two round trips on one pooled
/// connection, no lock held in between. The snapshot is one read; the plan is one statement that
/// commits by itself, guarded by the device's pending version. When another schedule for the
/// device moved it meanwhile, nothing was written, and the plan is decided again in a transaction
/// that holds the device's row lock (schedules racing for one device take turns instead of
/// retrying each other out). The stored instant is then announced to the other nodes in a batch
/// (``ArmingAnnouncer``), not in the write.
extension PostgresStore {
    public func scheduleSnapshot(appID: String, deviceID: String) async throws -> ScheduleSnapshot {
        try await read { connection in try await self.scheduleSnapshot(connection, appID: appID, deviceID: deviceID) }
    }

    public func schedule(appID: String, deviceID: String,
                         decide: @escaping @Sendable (ScheduleSnapshot) throws -> SchedulePlan) async throws -> ScheduleWrite {
        // The read and the guarded write share one pooled connection (one lease, not two).
        let optimistic = try await statement("schedule") { connection in
            try await self.decideAndApply(on: connection, appID: appID, deviceID: deviceID, decide: decide)
        }
        let written: ScheduleWrite
        if let done = try optimistic.get() {
            written = done
        } else {
            let locked: Result<ScheduleWrite, any Error> = try await transaction("schedule") { connection in
                try await connection.run("""
                    SELECT 1 FROM device WHERE app_id = \(appID) AND id = \(deviceID) FOR NO KEY UPDATE
                    """, logger: self.logger)
                switch try await self.decideAndApply(on: connection, appID: appID, deviceID: deviceID, decide: decide) {
                case .failure(let error): return .failure(error)
                case .success(let done?): return .success(done)
                case .success(nil):
                    throw StoreFault(.transient, statement: "schedule", code: nil,
                                     message: "the device's pending version moved while its row was locked")
                }
            }
            written = try locked.get()
        }
        if !written.plan.feedback.isEmpty { feedbackRaised() }
        if let armed = written.armed {
            announcer.announce([armed.fireAt]) { try await self.announce($0) }
        }
        return written
    }

    /// Reads the device's snapshot on `connection`, decides, and writes the plan guarded by the
    /// snapshot's version: nil when the version had moved (nothing written). What `decide` throws
    /// comes back as a failure, as it is, not as a store fault.
    private func decideAndApply(on connection: PostgresConnection, appID: String, deviceID: String,
                                decide: (ScheduleSnapshot) throws -> SchedulePlan) async throws -> Result<ScheduleWrite?, any Error> {
        let snapshot = try await scheduleSnapshot(connection, appID: appID, deviceID: deviceID)
        let plan: SchedulePlan
        do {
            plan = try decide(snapshot)
        } catch {
            return .failure(error)
        }
        guard let armed = try await apply(plan, on: connection) else { return .success(nil) }
        return .success(ScheduleWrite(snapshot: snapshot, plan: plan, armed: armed.entry))
    }

    private func scheduleSnapshot(_ connection: PostgresConnection, appID: String, deviceID: String) async throws -> ScheduleSnapshot {
        let query = ScheduleSnapshotQuery(appID: appID, deviceID: deviceID)
        guard let row = try await connection.execute(query, logger: logger).first(where: { _ in true }) else {
            throw HeraldError.appNotFound(appID)
        }
        let deviceAt = ScheduleSnapshotQuery.deviceOffset
        guard try row.value(deviceAt + 1, as: String?.self) != nil else {
            throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        }
        let at = deviceAt + Self.deviceColumnCount
        let ids = try row.value(at + 1, as: [String]?.self) ?? []
        let fireAts = try row.value(at + 2, as: [Int64]?.self) ?? []
        let keys = try row.value(at + 3, as: [Int64]?.self) ?? []
        let pending = zip(ids, zip(fireAts, keys)).map { id, rest in
            NotificationLimit.Pending(id: id, nextFireDate: Date(millisecondsSince1970: rest.0), sequence: rest.1)
        }
        return ScheduleSnapshot(app: try Self.app(from: row), device: try Self.device(from: row, offset: deviceAt),
                                pending: pending, version: try row.value(at))
    }

    /// The stored notification's timer entry, if any.
    private struct Armed: Sendable {
        var entry: TimerEntry?
    }

    /// Writes `plan` with one guarded statement; nil, with nothing written, when the device's
    /// pending version is no longer the plan's.
    private func apply(_ plan: SchedulePlan, on connection: PostgresConnection) async throws -> Armed? {
        let write = try ScheduleWriteStatement(plan)
        guard let row = try await connection.execute(write, logger: logger).first(where: { _ in true }),
              try row.value(0, as: Int64.self) == 1 else {
            return nil
        }
        guard let key = try row.value(1, as: Int64?.self), let stored = plan.store else { return Armed(entry: nil) }
        return Armed(entry: TimerEntry(fireAt: stored.nextFireDate.millisecondsSince1970, key: key))
    }
}

/// The app, the device with its pending version, and its pending notifications (ids, instants and
/// keys, aligned, in no particular order: the limit ranks them by instant and key itself, so no
/// sort is paid for), in one row; the device columns are NULL when the app has no such device,
/// and there is no row when there is no such app.
struct ScheduleSnapshotQuery: PostgresPreparedStatement {
    /// Named here: postgres-nio's default name reflects the type's name on every call.
    static let name = "herald_schedule_snapshot"
    static let deviceOffset = 6
    static let sql = """
        SELECT a.id, a.overflow, a.push, a.custom_kinds, a.fcm, a.web_push, \(PostgresStore.deviceColumns),
            d.pending_version, p.ids, p.fire_ats, p.keys
        FROM app a
        LEFT JOIN device d ON d.app_id = a.id AND d.id = $2::text
        LEFT JOIN LATERAL (
            SELECT array_agg(n.id) AS ids, array_agg(n.next_fire_at) AS fire_ats, array_agg(n.key) AS keys
            FROM notification n WHERE n.app_id = d.app_id AND n.device_id = d.id
        ) p ON true
        WHERE a.id = $1::text
        """

    static let bindingDataTypes: [PostgresDataType] = [.text, .text]

    var appID: String
    var deviceID: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(appID)
        bindings.append(deviceID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

/// A schedule plan in one statement: move the device's pending version if it is still the
/// snapshot's, and only then evict, record the feedback, and store. Returns (1, key) when written,
/// (0, NULL) when the version had moved.
struct ScheduleWriteStatement: PostgresPreparedStatement {
    static let name = "herald_schedule_write"
    static let sql = """
        WITH bumped AS (
            UPDATE device SET pending_version = pending_version + 1
            WHERE app_id = $1::text AND id = $2::text AND pending_version = $3::bigint RETURNING 1
        ), evicted AS (
            DELETE FROM notification WHERE app_id = $1::text AND device_id = $2::text AND id = ANY($4::text[])
                AND EXISTS (SELECT FROM bumped) RETURNING 1
        ), feedback AS (
            INSERT INTO feedback_event (type, app_id, payload, created_at)
            SELECT f.type, $1::text, f.payload, f.created_at
            FROM bumped, unnest($5::text[], $6::text[], $7::bigint[]) AS f(type, payload, created_at) RETURNING 1
        ), stored AS (
            INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, repeat_unit, repeat_every,
                repeat_count, repeat_until, repeat_until_at, content, next_index, next_fire_at, revision, created_at)
            SELECT $1::text, $2::text, $8::text, $9::text, $10::text, $11::text, $12::integer, $13::integer, $14::text,
                $15::bigint, $16::text, $17::bigint, $18::bigint, 1, $19::bigint
            FROM bumped WHERE $20::boolean
            ON CONFLICT (app_id, device_id, id) DO UPDATE SET fire_date = excluded.fire_date,
                time_zone = excluded.time_zone, repeat_unit = excluded.repeat_unit,
                repeat_every = excluded.repeat_every, repeat_count = excluded.repeat_count,
                repeat_until = excluded.repeat_until, repeat_until_at = excluded.repeat_until_at,
                content = excluded.content, next_index = excluded.next_index, next_fire_at = excluded.next_fire_at,
                revision = notification.revision + 1, generation = notification.generation + 1,
                created_at = excluded.created_at
            RETURNING key
        )
        SELECT (SELECT count(*) FROM bumped), (SELECT key FROM stored)
        """

    /// Declared, not inferred from the first execution's values: a NULL there would leave the
    /// type to the server, and later values would not match it.
    static let bindingDataTypes: [PostgresDataType] = [
        .text, .text, .int8, .textArray, .textArray, .textArray, .int8Array,
        .text, .text, .text, .text, .int8, .int8, .text, .int8, .text, .int8, .int8, .int8, .bool,
    ]

    let bindings: PostgresBindings

    init(_ plan: SchedulePlan) throws {
        var bindings = PostgresBindings(capacity: 20)
        bindings.append(plan.appID)
        bindings.append(plan.deviceID)
        bindings.append(plan.version)
        bindings.append(plan.evict)
        bindings.append(plan.feedback.map(\.type.rawValue))
        bindings.append(try plan.feedback.map { try PostgresStore.json($0.payload) })
        bindings.append(plan.feedback.map { $0.createdAt.millisecondsSince1970 })
        // Without a notification to store, the insert's columns are bound but not used.
        let notification = plan.store
        let schedule = notification.map(PostgresStore.ScheduleBinds.init)
        bindings.append(notification?.id ?? "")
        bindings.append(schedule?.fireDate ?? "")
        bindings.append(schedule?.timeZone)
        bindings.append(schedule?.unit)
        bindings.append(schedule?.every.map(Int64.init))
        bindings.append(schedule?.count.map(Int64.init))
        bindings.append(schedule?.untilText)
        bindings.append(schedule?.untilAt)
        bindings.append(try notification.map { try PostgresStore.json($0.content) } ?? "")
        bindings.append(Int64(notification?.nextIndex ?? 0))
        bindings.append(notification?.nextFireDate.millisecondsSince1970 ?? 0)
        bindings.append(plan.now.millisecondsSince1970)
        bindings.append(notification != nil)
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRandomAccessRow { row.makeRandomAccess() }
}
