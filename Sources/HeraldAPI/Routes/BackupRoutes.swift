import Foundation
import HeraldCore
import Hummingbird

/// `POST /v1/admin/backup` (admin): an online copy of the embedded SQLite store, taken while the
/// server keeps serving. PostgreSQL is backed up with its own tools (`pg_dump`; see docs/operations.md).
struct BackupRoutes {
    let services: APIServices
    /// Copies the store to a new file, when it can copy itself; nil on PostgreSQL.
    let backup: (@Sendable (_ destination: String) async throws -> BackupReport)?

    struct BackupBody: Decodable {
        /// The file to write, on the server's file system; it must not exist.
        var to: String?
    }

    struct BackupResource: Encodable {
        var path: String
        var bytes: Int64
        var pages: Int
        var durationMs: Int
        var integrity = "ok"

        init(_ report: BackupReport) {
            path = report.path
            bytes = report.bytes
            pages = report.pages
            let (seconds, attoseconds) = report.duration.components
            durationMs = Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        }
    }

    func register(on router: Router<HeraldRequestContext>) {
        router.post("/v1/admin/backup") { request, _ in
            let body = try await services.body.decode(BackupBody.self, from: request)
            guard let path = body.to, !path.isEmpty else { throw HeraldError.invalid(.missingField, "to: the file to write is required") }
            guard path.hasPrefix("/") else {
                throw HeraldError.invalid(.invalidBackupDestination, "to must be an absolute path on the server")
            }
            guard let backup else {
                throw HeraldError.invalid(.backupNotSupported,
                                          "this node runs on PostgreSQL: back it up with pg_dump (see docs/operations.md)")
            }
            return try Response.json(BackupResource(try await backup(path)), status: .created)
        }
    }
}
