import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// `herald-bench schedule-floor --url URL`: the least a schedule through an HTTP API on this
/// stack (Hummingbird, postgres-nio) costs, with none of Herald in it. It takes the same route as
/// Herald's, decodes the body, reads the device's pending version and count in one prepared
/// statement, writes the notification in one prepared statement guarded by that version (commits by
/// itself), and answers a short JSON body. `postgres-schedule` measures it beside Herald and
/// pgbench: what Herald could reach at best if all its own work (validation, the 128 limit,
/// content, timers, logs, metrics) cost nothing.
enum ScheduleFloorServer {
    static let marker = "schedule floor listening on http://127.0.0.1:"

    static func serve(url: String) async throws {
        guard let parts = URLComponents(string: url), let host = parts.host, let port = parts.port else {
            throw OptionsError("schedule-floor needs --url postgres://user@host:port/database")
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: parts.user ?? "postgres",
                                                         password: nil, database: String(parts.path.dropFirst()), tls: .disable)
        configuration.options.maximumConnections = 16
        let client = PostgresClient(configuration: configuration)
        let router = Router()
        router.get("/healthz") { _, _ in "ok" }
        router.post("/v1/apps/:app/devices/:device/notifications") { request, context -> Response in
            let app = try context.parameters.require("app")
            let device = try context.parameters.require("device")
            let body = try await request.decode(as: Body.self, context: context)
            let id = UUID().uuidString.lowercased()
            let stored = try await client.withConnection { connection -> Bool in
                guard let row = try await connection.execute(Snapshot(app: app, device: device), logger: logger)
                    .first(where: { _ in true }) else { return false }
                let write = Write(app: app, device: device, version: row.version, id: id, fireDate: body.fireDate,
                                  timeZone: body.timeZone)
                return try await connection.execute(write, logger: logger).first(where: { _ in true }) != nil
            }
            let answer = #"{"id":"\#(id)","stored":\#(stored)}"#
            return Response(status: stored ? .created : .conflict, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  let line = marker + "\(channel.localAddress?.port ?? 0)\n"
                                  FileHandle.standardOutput.write(Data(line.utf8))
                              })
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            try await app.runService()
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
