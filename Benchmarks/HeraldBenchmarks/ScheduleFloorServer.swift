import Foundation
import GRDB
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// `herald-bench schedule-floor (--url URL | --data-dir DIR --devices N)`: the least a schedule
/// through an HTTP API on this stack costs, with none of Herald in it. It takes the same route as
/// Herald's, decodes the body, reads the device's pending version and count, writes the
/// notification guarded by that version, and answers a short JSON body.
///
/// - On PostgreSQL (Hummingbird, postgres-nio): one prepared statement each, the write committing
///   by itself, on one pooled connection; the database and its devices are the caller's.
/// - On SQLite (Hummingbird, GRDB): one write transaction per request in WAL mode with
///   `synchronous=NORMAL`, Herald's default; it creates the database and registers `devices`
///   devices (`dev-0`...) first.
///
/// `postgres-schedule` and `run.sh` measure it beside Herald: what Herald could reach at best if
/// all its own work (validation, the 128 limit, content, timers, logs, metrics) cost nothing.
enum ScheduleFloorServer {
    static let marker = "schedule floor listening on http://127.0.0.1:"

    static func serve(_ options: Options) async throws {
        let router = Router()
        router.get("/healthz") { _, _ in "ok" }
        let services: [any Service]
        let write: @Sendable (_ app: String, _ device: String, _ id: String, _ body: Body) async throws -> Bool
        if !options.url.isEmpty {
            let client = try postgresClient(url: options.url)
            services = [PostgresClientService(client: client)]
            write = { app, device, id, body in try await scheduleOnPostgres(client, app: app, device: device, id: id, body: body) }
        } else if !options.dataDirectory.isEmpty {
            let pool = try sqlitePool(directory: options.dataDirectory, devices: options.devices)
            services = []
            write = { app, device, id, body in try await scheduleOnSQLite(pool, app: app, device: device, id: id, body: body) }
        } else {
            throw OptionsError("schedule-floor needs --url URL (PostgreSQL) or --data-dir DIR (SQLite)")
        }
        router.post("/v1/apps/:app/devices/:device/notifications") { request, context -> Response in
            let app = try context.parameters.require("app")
            let device = try context.parameters.require("device")
            let body = try await request.decode(as: Body.self, context: context)
            let id = UUID().uuidString.lowercased()
            let stored = try await write(app, device, id, body)
            let answer = #"{"id":"\#(id)","stored":\#(stored)}"#
            return Response(status: stored ? .created : .conflict, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        var app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  let line = marker + "\(channel.localAddress?.port ?? 0)\n"
                                  FileHandle.standardOutput.write(Data(line.utf8))
                              })
        app.addServices(services)
        try await app.runService()
    }

    // MARK: PostgreSQL

    private static func postgresClient(url: String) throws -> PostgresClient {
        guard let parts = URLComponents(string: url), let host = parts.host, let port = parts.port else {
            throw OptionsError("schedule-floor needs --url postgres://user@host:port/database")
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: parts.user ?? "postgres",
                                                         password: nil, database: String(parts.path.dropFirst()), tls: .disable)
        configuration.options.maximumConnections = 16
        return PostgresClient(configuration: configuration)
    }

    private struct PostgresClientService: Service {
        let client: PostgresClient
        func run() async throws { await client.run() }
    }

    private static func scheduleOnPostgres(_ client: PostgresClient, app: String, device: String, id: String,
                                           body: Body) async throws -> Bool {
        try await client.withConnection { connection -> Bool in
            guard let row = try await connection.execute(Snapshot(app: app, device: device), logger: logger)
                .first(where: { _ in true }) else { return false }
            let write = Write(app: app, device: device, version: row.version, id: id, fireDate: body.fireDate,
                              timeZone: body.timeZone)
            return try await connection.execute(write, logger: logger).first(where: { _ in true }) != nil
        }
    }

    // MARK: SQLite

    private static func sqlitePool(directory: String, devices: Int) throws -> DatabasePool {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: "\(directory)/floor.sqlite", configuration: configuration)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE device (app_id TEXT NOT NULL, id TEXT NOT NULL, pending_version INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (app_id, id));
                CREATE TABLE notification (key INTEGER PRIMARY KEY, app_id TEXT NOT NULL, device_id TEXT NOT NULL,
                    id TEXT NOT NULL, fire_date TEXT NOT NULL, time_zone TEXT NOT NULL, content TEXT NOT NULL,
                    UNIQUE (app_id, device_id, id));
                """)
            let insert = try db.makeStatement(sql: "INSERT INTO device (app_id, id) VALUES ('bench.app', ?)")
            for index in 0..<devices { try insert.execute(arguments: ["dev-\(index)"]) }
        }
        return pool
    }

    private static func scheduleOnSQLite(_ pool: DatabasePool, app: String, device: String, id: String,
                                         body: Body) async throws -> Bool {
        try await pool.write { db -> Bool in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT d.pending_version, (SELECT count(*) FROM notification n WHERE n.app_id = d.app_id AND n.device_id = d.id)
                FROM device d WHERE d.app_id = ? AND d.id = ?
                """), arguments: [app, device]) else { return false }
            let version: Int64 = row[0]
            try db.cachedStatement(sql: "UPDATE device SET pending_version = ? WHERE app_id = ? AND id = ?")
                .execute(arguments: [version + 1, app, device])
            try db.cachedStatement(sql: """
                INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, content)
                VALUES (?, ?, ?, ?, ?, '{"alert":{"body":"hi"}}')
                """).execute(arguments: [app, device, id, body.fireDate, body.timeZone])
            return true
        }
    }

    private static let logger = Logger(label: "schedule-floor")

    struct Body: Decodable {
        var fireDate: String
        var timeZone: String
    }

    /// The device's pending version and its count of pending notifications.
    struct Snapshot: PostgresPreparedStatement {
        static let sql = """
            SELECT d.pending_version, (SELECT count(*) FROM notification n WHERE n.app_id = d.app_id AND n.device_id = d.id)
            FROM device d WHERE d.app_id = $1 AND d.id = $2
            """
        typealias Row = (version: Int64, pending: Int64)

        var app: String
        var device: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(app)
            bindings.append(device)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (version, pending) = try row.decode((Int64, Int64).self)
            return (version, pending)
        }
    }

    /// The notification, stored only while the device's pending version is the one read.
    struct Write: PostgresPreparedStatement {
        static let sql = """
            WITH bumped AS (
                UPDATE device SET pending_version = pending_version + 1
                WHERE app_id = $1 AND id = $2 AND pending_version = $3 RETURNING 1
            )
            INSERT INTO notification (app_id, device_id, id, fire_date, time_zone, repeat_unit, content, next_index,
                next_fire_at, revision, created_at)
            SELECT $1, $2, $4, $5, $6, 'day', '{"alert":{"body":"hi"}}', 0, 1893479400000, 1, 0 FROM bumped
            RETURNING key
            """
        typealias Row = Int64

        var app: String
        var device: String
        var version: Int64
        var id: String
        var fireDate: String
        var timeZone: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(app)
            bindings.append(device)
            bindings.append(version)
            bindings.append(id)
            bindings.append(fireDate)
            bindings.append(timeZone)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }
}
