import Foundation
import Logging
import PostgresNIO

/// Herald's storage on PostgreSQL, shared by several nodes.
///
/// This is the first part of the several-node backend (docs/several-nodes.md): the connection
/// pool, the schema migrated once however many nodes start together, and the registry of nodes
/// that leases will be measured against. The role stores follow, one by one, each proved by the
/// same store contract suite SQLite runs.
///
/// ```swift
/// let store = try await PostgresStore.open(location, nodeID: "node-a", logger: logger)
/// defer { Task { await store.close() } }
/// ```
public final class PostgresStore: Sendable {
    /// This node's name, as it appears in leases and logs.
    public let nodeID: String
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>

    private init(client: PostgresClient, nodeID: String, logger: Logger) {
        self.client = client
        self.nodeID = nodeID
        self.logger = logger
        runner = Task { await client.run() }
    }

    /// Connects, migrates the schema under the advisory lock, and registers this node.
    ///
    /// - Parameters:
    ///   - location: the database.
    ///   - nodeID: a stable name for this node (the configuration's `node.id`).
    ///   - poolSize: connections this node may open at most.
    /// - Throws: the connection error when the database cannot be reached or refuses the user;
    ///   an SQL error from a migration (the pool is closed again before it propagates).
    public static func open(_ location: PostgresLocation, nodeID: String, poolSize: Int = 8,
                            logger: Logger = Logger(label: "herald.postgres")) async throws -> PostgresStore {
        // One direct connection first: a database that is down or refuses us fails here, at
        // once, rather than as queries that wait for the pool to give up retrying.
        let probe = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                            password: location.password, database: location.database,
                                                            tls: .disable),
            id: 0, logger: logger)
        try await probe.close()
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: location.password, database: location.database,
                                                         tls: .disable)
        configuration.options.maximumConnections = max(1, poolSize)
        let store = PostgresStore(client: PostgresClient(configuration: configuration, backgroundLogger: logger),
                                  nodeID: nodeID, logger: logger)
        do {
            _ = try await PostgresSchema.migrate(store.client, logger: logger)
            try await store.heartbeat(startedNow: true)
            return store
        } catch {
            await store.close()
            throw error
        }
    }

    /// Closes the pool.
    public func close() async {
        runner.cancel()
        _ = await runner.value
    }

    /// Records that this node is alive (and, at start, when it started).
    public func heartbeat(startedNow: Bool = false, now: Date = Date()) async throws {
        let at = Int64((now.timeIntervalSince1970 * 1000).rounded())
        if startedNow {
            try await client.query("""
                INSERT INTO node (id, started_at, heartbeat_at) VALUES (\(nodeID), \(at), \(at))
                ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at
                """, logger: logger)
        } else {
            try await client.query("UPDATE node SET heartbeat_at = \(at) WHERE id = \(nodeID)", logger: logger)
        }
    }

    /// The nodes registered in this database, by name.
    public func nodes() async throws -> [String] {
        var names: [String] = []
        for try await name in try await client.query("SELECT id FROM node ORDER BY id", logger: logger).decode(String.self) {
            names.append(name)
        }
        return names
    }

    /// The migrations applied to this database, in the order they were applied.
    public func appliedMigrations() async throws -> [String] {
        var identifiers: [String] = []
        let rows = try await client.query("SELECT identifier FROM herald_migrations ORDER BY applied_at, identifier",
                                          logger: logger)
        for try await identifier in rows.decode(String.self) { identifiers.append(identifier) }
        return identifiers
    }
}
