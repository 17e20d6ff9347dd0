import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO
import Synchronization

/// Every store call goes through ``transaction(_:_:)`` or ``read(_:_:)``. Each has a deadline
/// that covers the whole call, the wait for a connection included, and each turns PostgreSQL's
/// errors into a ``StoreFault`` named after the call, in one place.
extension PostgresStore {
    /// Runs `body` in one transaction, again from the start when PostgreSQL aborted it for a
    /// deadlock or a serialization failure, each attempt within ``callTimeout``.
    ///
    /// - Parameter statement: the call's name for logs (the caller's function by default).
    /// - Throws: what the body threw when it is a domain error (``HeraldError``) or a
    ///   cancellation; otherwise a ``StoreFault``.
    func transaction<Result: Sendable>(_ statement: String = #function,
                                       _ body: @escaping @Sendable (PostgresConnection) async throws -> Result)
    async throws -> Result {
        try await retryingConflicts {
            try await self.withDeadline(statement) { [logger] client, held in
                try await client.withTransaction(logger: logger) { connection in
                    held.connection.withLock { $0 = connection }
                    return try await body(connection)
                }
            }
        }
    }

    /// Runs `body`, one statement that is atomic on its own, outside an explicit transaction:
    /// one round trip instead of three (`BEGIN`, the statement, `COMMIT`). Like
    /// ``transaction(_:_:)``, it runs again when PostgreSQL aborted it for a deadlock or a
    /// serialization failure.
    func statement<Result: Sendable>(_ statement: String = #function,
                                     _ body: @escaping @Sendable (PostgresConnection) async throws -> Result)
    async throws -> Result {
        try await retryingConflicts { try await self.read(statement, body) }
    }

    /// Runs `call` again, up to 10 times in all, when PostgreSQL aborted it for a deadlock
    /// (40P01) or a serialization failure (40001): nothing it did was committed.
    private func retryingConflicts<Result: Sendable>(_ call: () async throws -> Result) async throws -> Result {
        var attempt = 0
        while true {
            do {
                return try await call()
            } catch let fault as StoreFault where fault.code == "40001" || fault.code == "40P01" {
                attempt += 1
                if attempt >= 10 { throw fault }
            }
        }
    }

    /// Runs `body` on a pooled connection, outside any transaction, within ``callTimeout``.
    func read<Result: Sendable>(_ statement: String = #function,
                                _ body: @escaping @Sendable (PostgresConnection) async throws -> Result)
    async throws -> Result {
        try await withDeadline(statement) { client, held in
            try await client.withConnection { connection in
                held.connection.withLock { $0 = connection }
                return try await body(connection)
            }
        }
    }

    /// Runs `call` on the pool and gives up after ``callTimeout``. The call runs in a task of its
    /// own, so a call stuck where cancellation does not reach (a silent connection, a pool that
    /// hands out nothing) cannot hold its caller: at the deadline the connection it holds is
    /// closed, which fails its statement, and a call that never got a connection has the pool
    /// replaced. The deadline is a registration with the store's one watch (``CallDeadlines``),
    /// not a timer of the call's own.
    private func withDeadline<Result: Sendable>(
        _ statement: String,
        _ call: @escaping @Sendable (PostgresClient, HeldConnection) async throws -> Result
    ) async throws -> Result {
        let (client, generation) = pool.client
        let held = HeldConnection()
        let waiting = CallWait<Result>(deadlines: deadlines)
        let work = Task {
            defer { held.connection.withLock { $0 = nil } }
            do {
                waiting.finish(.success(try await call(client, held)))
            } catch {
                waiting.finish(.failure(error))
            }
        }
        // A call waiting for a connection on a pool that still finishes calls is queued, not
        // stuck: it may wait up to three deadlines in all. One that holds a connection, or waits
        // on a pool that finished nothing for a deadline, is given up at once.
        for wait in 1...Self.connectionWaits {
            switch await waiting.wait(within: callTimeout, cancelling: work) {
            case .finished(let result):
                pool.finished(generation: generation)
                do {
                    return try result.get()
                } catch {
                    throw Self.fault(error, statement: statement)
                }
            case .timedOut:
                if let connection = held.connection.withLock({ $0 }) {
                    // No answer on a connection for a whole deadline (the server would have ended
                    // a slow statement itself): the pool's connections are suspect (terminated or
                    // silent ones it has not noticed), so the next calls get a fresh pool.
                    work.cancel()
                    let _: EventLoopFuture<Void> = connection.close()
                    pool.replace(generation: generation, ifQuietFor: .zero)
                    throw Self.fault(StoreDeadlineExceeded(), statement: statement)
                }
                if pool.replace(generation: generation, ifQuietFor: callTimeout) || wait == Self.connectionWaits {
                    work.cancel()
                    throw Self.fault(StoreDeadlineExceeded(), statement: statement)
                }
            }
        }
        throw Self.fault(StoreDeadlineExceeded(), statement: statement)
    }

    /// How many deadlines a call may spend queued for a connection on a pool that is busy.
    static let connectionWaits = 3

    /// Now on the database's clock, in milliseconds: leases compare against one clock, whatever
    /// the nodes' clocks say.
    static let databaseNow = "(extract(epoch from clock_timestamp()) * 1000)::bigint"

    /// PostgreSQL's answer, or what happened to the connection, as a ``StoreFault``; domain
    /// errors and cancellations pass through as they are.
    static func fault(_ error: any Error, statement: String) -> any Error {
        switch error {
        case is HeraldError, is CancellationError, is StoreFault:
            return error
        case is StoreDeadlineExceeded:
            return StoreFault(.transient, statement: statement, code: nil,
                              message: "no answer within the store call's deadline; the connection was closed")
        case let error as PostgresTransactionError:
            return fault(error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError ?? error,
                         statement: statement)
        case let error as PSQLError:
            if error.code == .server, let state = error.serverInfo?[.sqlState] {
                let kind: StoreFault.Kind = state == diskFull ? .storageFull : transientStates(state) ? .transient : .definite
                return StoreFault(kind, statement: statement, code: state,
                                  message: error.serverInfo?[.message] ?? "the server refused the statement")
            }
            let transient: Set<PSQLError.Code> = [.clientClosedConnection, .serverClosedConnection, .connectionError,
                                                  .uncleanShutdown, .queryCancelled, .poolClosed, .listenFailed]
            return StoreFault(transient.contains(error.code) ? .transient : .definite, statement: statement, code: nil,
                              message: "connection: \(error.code)")
        default:
            return StoreFault(.definite, statement: statement, code: nil, message: String(describing: type(of: error)))
        }
    }

    /// PostgreSQL's disk_full: the server had no room to write.
    static let diskFull = "53100"

    /// SQLSTATEs that say the work did not happen for a reason of the server's: connection
    /// exceptions (08), serialization failure and deadlock, insufficient resources (53, too many
    /// connections among them), statement and lock timeouts, an idle transaction ended, and the
    /// server shutting down or starting (57P01-57P03).
    static func transientStates(_ state: String) -> Bool {
        state.hasPrefix("08") || state.hasPrefix("53")
            || ["40001", "40P01", "57014", "55P03", "25P03", "57P01", "57P02", "57P03"].contains(state)
    }
}

/// The connection a store call holds, once it has one: what its deadline closes.
final class HeldConnection: Sendable {
    let connection = Mutex<PostgresConnection?>(nil)
}
