import Foundation
import HeraldCore
import HeraldPostgres
import Testing

// "storage.url ...: postgres://USER[:PASSWORD]@HOST:PORT/DB (the password may instead come from
// storage.passwordFile or PGPASSWORD)."
@Suite("A storage URL names a PostgreSQL database")
struct PostgresLocationTests {
    static func reason(_ url: String) -> String? {
        do {
            _ = try PostgresLocation(url: url)
            return nil
        } catch {
            return error.reason.rawValue
        }
    }

    @Test("User, password, host, port and database are read; the port defaults to 5432")
    func readsEveryPart() throws {
        let full = try PostgresLocation(url: "postgres://herald:s3cret@db.internal:6543/schedule")
        #expect(full == PostgresLocation(host: "db.internal", port: 6543, user: "herald", password: "s3cret", database: "schedule"))
        let short = try PostgresLocation(url: "postgresql://herald@127.0.0.1/herald")
        #expect(short.port == 5432)
        #expect(short.password == nil)
    }

    @Test("Without one in the URL, the password comes from the password file, then PGPASSWORD")
    func passwordSources() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("herald-pg-\(UUID().uuidString)")
        try "from-file\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let environment = ["PGPASSWORD": "from-env"]
        #expect(try PostgresLocation(url: "postgres://h@host/db", passwordFile: file.path, environment: environment).password
                    == "from-file")
        #expect(try PostgresLocation(url: "postgres://h@host/db", environment: environment).password == "from-env")
        #expect(try PostgresLocation(url: "postgres://h:in-url@host/db", passwordFile: file.path, environment: environment)
                    .password == "in-url")
        #expect(throws: HeraldError.self) {
            try PostgresLocation(url: "postgres://h@host/db", passwordFile: "/nonexistent/herald-password")
        }
    }

    @Test("A URL that is not postgres://USER@HOST/DB is refused as invalidStorageURL", arguments: [
        "mysql://herald@host/db", "postgres://host/db", "postgres://herald@host", "postgres://herald@host/", "not a url",
    ])
    func refusesBadURLs(url: String) {
        #expect(Self.reason(url) == "invalidStorageURL")
    }

    @Test("The redacted form never shows the password")
    func redacted() throws {
        let location = try PostgresLocation(url: "postgres://herald:s3cret@db:5432/herald")
        #expect(location.redacted == "postgres://herald@db:5432/herald")
    }
}
