import Foundation
import HeraldStorage
import Logging
import PostgresNIO
import Synchronization

/// Herald's storage on PostgreSQL, shared by several nodes (docs/several-nodes.md).
///
/// It keeps the same role contracts as ``SQLiteStore`` (the store contract suite runs against
/// both), and adds what several nodes need: firings leased to the node delivering them, outcome
/// writes fenced by that lease, and word of timer entries written on other nodes.
///
/// ```swift
/// let store = try await PostgresStore.open(location, nodeID: "node-a", logger: logger)
/// defer { Task { await store.close() } }
/// ```
public final class PostgresStore: HeraldStore, NodeStore, Sendable {
    /// This node's name, as it appears in leases and logs.
    public let nodeID: String
    /// How long a node's claim on a firing it is delivering lasts without a heartbeat.
    public let leaseMilliseconds: Int64
    let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    /// Called after a feedback event is committed here, so this node's outbox dispatcher wakes.
    private let feedbackObserver = Mutex<(@Sendable () -> Void)?>(nil)

    private init(client: PostgresClient, location: PostgresLocation, nodeID: String, leaseMilliseconds: Int64,
                 logger: Logger) {
        self.client = client
        self.location = location
        self.nodeID = nodeID
        self.leaseMilliseconds = leaseMilliseconds
        self.logger = logger
        runner = Task { await client.run() }
    }

    /// Connects, migrates the schema under the advisory lock, and registers this node.
    ///
    /// - Parameters:
    ///   - location: the database.
    ///   - nodeID: a stable name for this node (the configuration's `node.id`).
    ///   - poolSize: connections this node may open at most.
    ///   - leaseMilliseconds: how long this node's claims on firings last without a heartbeat.
    /// - Throws: the connection error when the database cannot be reached or refuses the user;
    ///   an SQL error from a migration (the pool is closed again before it propagates).
    public static func open(_ location: PostgresLocation, nodeID: String, poolSize: Int = 8,
                            leaseMilliseconds: Int64 = 5_000,
                            logger: Logger = Logger(label: "herald.postgres")) async throws -> PostgresStore {
        // One direct connection first: a database that is down or refuses us fails here, at
        // once, rather than as queries that wait for the pool to give up retrying.
        let probe = try await PostgresConnection.connect(configuration: location.connectionConfiguration, id: 0,
                                                         logger: logger)
        try await probe.close()
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: location.password, database: location.database,
                                                         tls: .disable)
        configuration.options.maximumConnections = max(2, poolSize)
        let store = PostgresStore(client: PostgresClient(configuration: configuration, backgroundLogger: logger),
                                  location: location, nodeID: nodeID, leaseMilliseconds: leaseMilliseconds, logger: logger)
        do {
            _ = try await PostgresSchema.migrate(store.client, logger: logger)
            try await store.heartbeat(startedNow: true)
            try await store.forgetOwnStreams()
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

    /// Registers the one function told about new feedback events.
    public func observeFeedback(_ observer: @escaping @Sendable () -> Void) {
        feedbackObserver.withLock { $0 = observer }
    }

    func feedbackRaised() {
        feedbackObserver.withLock { $0 }?()
    }

    /// Runs `body` in one transaction, again from the start when PostgreSQL aborted it for a
    /// deadlock or a serialization failure, and rethrows what the body threw, unwrapped.
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        var attempt = 0
        while true {
            do {
                return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
            } catch let error as PostgresTransactionError {
                let cause = error.closureError ?? error.commitError ?? error.beginError ?? error
                attempt += 1
                if Self.isTransient(cause), attempt < 10 { continue }
                throw cause
            }
        }
    }

    /// A deadlock or serialization failure: the transaction did nothing and may simply run again.
    static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// Records that this node is alive (and, at start, when it started).
    public func heartbeat(startedNow: Bool = false, now: Date = Date()) async throws {
        let at = now.millisecondsSince1970
        if startedNow {
            try await client.query("""
                INSERT INTO node (id, started_at, heartbeat_at) VALUES (\(nodeID), \(at), \(at))
                ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at
                """, logger: logger)
        } else {
            try await client.query("UPDATE node SET heartbeat_at = greatest(heartbeat_at, \(at)) WHERE id = \(nodeID)", logger: logger)
        }
    }

    /// Marks this node gone (its heartbeat at 0): the other nodes take over any firing it still
    /// holds at their next heartbeat, instead of after a lease.
    public func leave() async throws {
        try await client.query("UPDATE node SET heartbeat_at = 0 WHERE id = \(nodeID)", logger: logger)
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
