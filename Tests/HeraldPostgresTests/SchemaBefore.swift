@testable import HeraldPostgres
import HeraldTestSupport
import Testing

/// The `herald` database on `server` at the schema a migration test upgrades from: every
/// migration up to and including `previous` applied, none after it, and `next` the one that
/// follows it (so the test upgrades through exactly the migration it names).
func schema(before next: String, previous: String, on server: PostgresServer) async throws -> PostgresLocation {
    let location = try PostgresLocation(url: server.url(database: "herald"))
    let identifiers = PostgresSchema.migrations.map(\.identifier)
    let previousIndex = try #require(identifiers.firstIndex(of: previous))
    #expect(identifiers.dropFirst(previousIndex + 1).first == next)
    #expect(try await PostgresSchema.migrate(location, upTo: previous, logger: quietLogger("herald.test.postgres"))
            == Array(identifiers[...previousIndex]))
    return location
}
