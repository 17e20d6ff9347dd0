import Foundation
import HeraldPostgres
import HeraldTestSupport
import Logging
import Testing

// "Migrations run at start-up under an advisory lock, so nodes started together do not race."
@Suite("PostgreSQL: the schema is migrated once, however many nodes start together", .serialized)
struct PostgresMigrationTests {
    static func location(_ server: PostgresServer, database: String) throws -> PostgresLocation {
        try PostgresLocation(url: server.url(database: database))
    }

    static let logger = quietLogger("herald.test.postgres")

    @Test("Three nodes opening a fresh database at once apply each migration once and all register (20 rounds)")
    func nodesStartedTogether() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        for round in 0..<20 {
            let database = "together_\(round)"
            try server.createDatabase(database)
            let location = try Self.location(server, database: database)
            let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
                for node in ["node-a", "node-b", "node-c"] {
                    group.addTask { try await PostgresStore.open(location, nodeID: node, poolSize: 2, logger: Self.logger) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let applied = try await stores[0].appliedMigrations()
            #expect(applied.count == Set(applied).count, "round \(round): a migration recorded twice: \(applied)")
            #expect(!applied.isEmpty)
            #expect(try await stores[0].nodes() == ["node-a", "node-b", "node-c"], "round \(round)")
            for store in stores { await store.close() }
        }
    }

    @Test("A node opening a migrated database applies nothing and keeps what is stored")
    func reopening() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let location = try Self.location(server, database: "herald")
        let first = try await PostgresStore.open(location, nodeID: "node-a", logger: Self.logger)
        let applied = try await first.appliedMigrations()
        await first.close()
        let again = try await PostgresStore.open(location, nodeID: "node-a", logger: Self.logger)
        #expect(try await again.appliedMigrations() == applied)
        #expect(try await again.nodes() == ["node-a"], "a node that restarts keeps its one registration")
        await again.close()
    }

    @Test("A database that cannot be reached fails the open, naming the error")
    func unreachable() async throws {
        let location = PostgresLocation(host: "127.0.0.1", port: try unusedLoopbackPort(), user: "herald", database: "herald")
        await #expect(throws: (any Error).self) {
            try await PostgresStore.open(location, nodeID: "node-a", logger: Self.logger)
        }
    }
}
