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
/// let store = try await PostgresStore.open(location, nodeID: "node-a", logger: self.logger)
/// defer { Task { await store.close() } }
/// ```
public final class PostgresStore: HeraldStore, NodeStore, Sendable {
    /// This node's name, as it appears in leases and logs.
    public let nodeID: String
    /// How long a node's claim on a firing it is delivering lasts without a heartbeat.
    public let leaseMilliseconds: Int64
    /// The longest one store call may take, waiting for a connection included; past it the
    /// call fails as a transient ``StoreFault`` and its connection is closed.
    public let callTimeout: Duration
    /// Whose clock says what is due: the database's (production), or the caller's.
    public let dueClock: DueClock

    /// Whose clock decides what is due when the timer claims.
    public enum DueClock: Sendable {
        /// The database's: a node whose clock runs ahead claims nothing early.
        case database
        /// The `until` the caller passes, as it is: for tests that move time by hand.
        case caller
    }
    let location: PostgresLocation
    let pool: PostgresPool
    let logger: Logger
    /// This node's armed instants, on their way to the other nodes.
    let announcer: ArmingAnnouncer
    /// The deadlines of the store calls in flight.
    let deadlines: CallDeadlines
    /// This node's claims read one at a time, and write one at a time (``ClaimTurns``).
    let claimReads = ClaimTurns(), claimWrites = ClaimTurns()
    /// What this node's next claim does not read (``ClaimedKeys``).
    let claimedKeys = ClaimedKeys()
    /// Called after a feedback event is committed here, so this node's outbox dispatcher wakes.
    private let feedbackObserver = Mutex<(@Sendable () -> Void)?>(nil)

    private init(pool: PostgresPool, location: PostgresLocation, nodeID: String, leaseMilliseconds: Int64,
                 callTimeout: Duration, dueClock: DueClock, logger: Logger) {
        self.pool = pool
        self.callTimeout = callTimeout
        self.dueClock = dueClock
        self.location = location
        self.nodeID = nodeID
        self.leaseMilliseconds = leaseMilliseconds
        self.logger = logger
        announcer = ArmingAnnouncer(logger: logger)
        deadlines = CallDeadlines(tick: min(.milliseconds(100), callTimeout / 10))
    }

    /// Connects, migrates the schema under the advisory lock, and registers this node.
    ///
    /// - Parameters:
    ///   - location: the database.
    ///   - nodeID: a stable name for this node (the configuration's `node.id`).
    ///   - poolSize: connections this node may open at most.
    ///   - leaseMilliseconds: how long this node's claims on firings last without a heartbeat.
    ///   - callTimeout: the deadline of every store call; the server ends this node's statements,
    ///     lock waits and idle transactions after it too, so a session given up on keeps no locks.
    ///   - dueClock: whose clock decides what is due; tests that move time by hand pass `.caller`.
    /// - Throws: the connection error when the database cannot be reached or refuses the user;
    ///   an SQL error from a migration (the pool is closed again before it propagates).
    public static func open(_ location: PostgresLocation, nodeID: String, poolSize: Int = 8,
                            leaseMilliseconds: Int64 = 5_000, callTimeout: Duration = .seconds(10),
                            dueClock: DueClock = .database, logger: Logger = Logger(label: "herald.postgres")) async throws -> PostgresStore {
        // One direct connection first: a database that is down or refuses us fails here, at
        // once, rather than as queries that wait for the pool to give up retrying.
        let probe = try await PostgresConnection.connect(configuration: location.connectionConfiguration, id: 0,
                                                         logger: logger)
        try await probe.close()
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: location.password, database: location.database,
                                                         tls: .disable)
        configuration.options.maximumConnections = max(2, poolSize)
        configuration.options.connectTimeout = callTimeout
        configuration.options.additionalStartupParameters = serverSideTimeouts(callTimeout)
        let store = PostgresStore(pool: PostgresPool(configuration: configuration, logger: logger),
                                  location: location, nodeID: nodeID, leaseMilliseconds: leaseMilliseconds,
                                  callTimeout: callTimeout, dueClock: dueClock, logger: logger)
        do {
            _ = try await PostgresSchema.migrate(store.pool.client.0, logger: logger)
            try await store.register()
            try await store.forgetOwnStreams()
            return store
        } catch {
            await store.close()
            throw error
        }
    }

    /// Session settings sent at connect: the server ends a statement, a lock wait or an idle
    /// transaction that outlives the call's deadline (a node that gave up on a silent
    /// connection must not keep row locks there), and probes an idle client's socket, so a
    /// session behind a middlebox that lost its state ends too; and the planner's costs
    /// (``plannerSettings``).
    static func serverSideTimeouts(_ callTimeout: Duration) -> [(String, String)] {
        let milliseconds = String(callTimeout.wholeMilliseconds)
        return [("statement_timeout", milliseconds), ("lock_timeout", milliseconds),
                ("idle_in_transaction_session_timeout", milliseconds),
                ("tcp_keepalives_idle", "5"), ("tcp_keepalives_interval", "2"), ("tcp_keepalives_count", "3")]
            + plannerSettings
    }

    /// How this node's sessions cost plans. The rows Herald touches by key (a batch's outcomes,
    /// inbox items, devices) are in memory, so an index lookup costs about a sequential read:
    /// with PostgreSQL's default random_page_cost of 4, every batch of 500 outcomes on a fire log
    /// of under about 100,000 rows hashed a scan of the whole log (O(log) per batch, measured at
    /// 40 µs per occurrence in a 20,000 burst) instead of 500 index lookups.
    static let plannerSettings = [("random_page_cost", "1.1")]

    /// Marks this node gone (at most a second's try: a node restarting under the same id need not
    /// wait out its own heartbeat) and closes the pool.
    public func close() async {
        let leaving = Task { try await leave() }
        if case .timedOut = await outcome(of: leaving, within: .seconds(1)) { leaving.cancel() }
        await pool.close()
        deadlines.close()
    }

    /// Registers the one function told about new feedback events.
    public func observeFeedback(_ observer: @escaping @Sendable () -> Void) {
        feedbackObserver.withLock { $0 = observer }
    }

    func feedbackRaised() {
        feedbackObserver.withLock { $0 }?()
    }

    /// Records that this node is alive, by the database's clock: every lease is measured on
    /// that one clock, whatever the nodes' clocks say.
    public func heartbeat() async throws {
        try await read { connection in
            try await connection.run("""
                UPDATE node SET heartbeat_at = greatest(heartbeat_at, \(unescaped: Self.databaseNow)) WHERE id = \(self.nodeID)
                """, logger: self.logger)
        }
    }

    /// Registers this node at start. A node whose id another live process already uses would
    /// share its row and take over its firings: when the row's heartbeat is fresh, this waits
    /// half a lease (a live node renews every third of one) and refuses to start if the
    /// heartbeat moved meanwhile (a node that was killed leaves a fresh heartbeat that does not
    /// move).
    ///
    /// - Throws: ``NodeIDInUse`` when a live node has this id.
    func register() async throws {
        let seen = try await read { connection in
            try await connection.row("""
                SELECT heartbeat_at, heartbeat_at >= \(unescaped: Self.databaseNow) - \(self.leaseMilliseconds) FROM node WHERE id = \(self.nodeID)
                """, logger: self.logger).map { (try $0.value(0, as: Int64.self), try $0.value(1, as: Bool.self)) }
        }
        if let (heartbeat, fresh) = seen, fresh {
            try await Task.sleep(for: .milliseconds(leaseMilliseconds / 2 + 500))
            let now = try await read { connection in
                try await connection.row("SELECT heartbeat_at FROM node WHERE id = \(self.nodeID)", logger: self.logger)?
                    .value(0, as: Int64.self)
            }
            if let now, now > heartbeat { throw NodeIDInUse(nodeID: nodeID) }
        }
        try await read { connection in
            try await connection.run("""
                INSERT INTO node (id, started_at, heartbeat_at) VALUES (\(self.nodeID), \(unescaped: Self.databaseNow), \(unescaped: Self.databaseNow))
                ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at
                """, logger: self.logger)
        }
    }

    /// Marks this node gone (its heartbeat at 0): the other nodes take over any firing it still
    /// holds at their next heartbeat, instead of after a lease.
    public func leave() async throws {
        try await read { connection in
            try await connection.run("UPDATE node SET heartbeat_at = 0 WHERE id = \(self.nodeID)", logger: self.logger)
        }
    }

    /// The nodes registered in this database, by name.
    public func nodes() async throws -> [String] {
        try await read { connection in
            try await connection.rows("SELECT id FROM node ORDER BY id", logger: self.logger).map { try $0.value(0, as: String.self) }
        }
    }

    /// The migrations applied to this database, in the order they were applied.
    public func appliedMigrations() async throws -> [String] {
        try await read { connection in
            try await connection.rows("SELECT identifier FROM herald_migrations ORDER BY applied_at, identifier",
                                      logger: self.logger).map { try $0.value(0, as: String.self) }
        }
    }
}

/// Another live node already uses this node's id (node.id): two processes sharing one would take
/// over each other's work.
public struct NodeIDInUse: Error, CustomStringConvertible {
    public let nodeID: String

    public var description: String {
        "node id '\(self.nodeID)' is in use by a live node (its heartbeat is moving); give this node another node.id"
    }
}
