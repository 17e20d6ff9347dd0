import Logging
import PostgresNIO
import Synchronization

/// The node's connection pool, replaceable: a store call that got no answer on its connection for
/// a whole deadline, or that waited that long for a connection while no call finished, means the
/// pool is stuck (connections the server ended, or that went silent, still counted as usable or
/// in use), and the next call gets a fresh pool instead of waiting behind the stuck one. The old
/// pool's run is cancelled, which closes its connections and fails the calls still on them (they
/// are transient faults, tried again by their callers).
final class PostgresPool: Sendable {
    private struct Current {
        var client: PostgresClient
        var runner: Task<Void, Never>
        var generation: Int
        /// When a call on this pool last finished, well or not: a busy pool still finishes calls.
        var lastFinished: ContinuousClock.Instant = .now
    }

    private let configuration: PostgresClient.Configuration
    private let logger: Logger
    private let current: Mutex<Current>

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        current = Mutex(Self.start(configuration, logger: logger, generation: 0))
    }

    private static func start(_ configuration: PostgresClient.Configuration, logger: Logger, generation: Int) -> Current {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        // Detached: a pool replaced from inside a request or a service must not inherit its
        // graceful-shutdown context and close when that stops first.
        return Current(client: client, runner: Task.detached { await client.run() }, generation: generation)
    }

    /// The pool to use now, and its generation (to name it in ``replace(generation:)``).
    var client: (PostgresClient, generation: Int) {
        current.withLock { ($0.client, $0.generation) }
    }

    /// Records that a call on pool `generation` finished.
    func finished(generation: Int) {
        current.withLock { current in
            if current.generation == generation { current.lastFinished = .now }
        }
    }

    /// Replaces pool `generation` with a fresh one if no call on it finished for `quiet` (a
    /// pool that is only busy keeps finishing calls), unless that was done already.
    /// Returns whether the pool was stuck (replaced now, or already).
    @discardableResult
    func replace(generation: Int, ifQuietFor quiet: Duration) -> Bool {
        var replaced = false
        let old = current.withLock { current -> Task<Void, Never>? in
            guard current.generation == generation else {
                replaced = true
                return nil
            }
            guard ContinuousClock.now - current.lastFinished >= quiet else { return nil }
            replaced = true
            let old = current.runner
            current = Self.start(configuration, logger: logger, generation: generation + 1)
            return old
        }
        guard let old else { return replaced }
        logger.warning("the connection pool stopped handing out connections; replaced it with a new one",
                       metadata: ["generation": "\(generation + 1)"])
        old.cancel()
        return true
    }

    /// Closes the pool in use.
    func close() async {
        let runner = current.withLock { $0.runner }
        runner.cancel()
        await runner.value
    }
}
