import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// Every store call goes through ``transaction(_:_:)`` or ``read(_:_:)``: each has a deadline
/// once it holds a connection (the pool's connect timeout bounds the wait for one), and each
/// turns PostgreSQL's errors into a ``StoreFault`` named after the call, in one place.
extension PostgresStore {
    /// Runs `body` in one transaction, again from the start when PostgreSQL aborted it for a
    /// deadlock or a serialization failure, each attempt within ``callTimeout``.
    ///
    /// - Parameter statement: the call's name for logs (the caller's function by default).
    /// - Throws: what the body threw when it is a domain error (``HeraldError``) or a
    ///   cancellation; otherwise a ``StoreFault``.
    func transaction<Result: Sendable>(_ statement: String = #function,
                                       _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        var attempt = 0
        while true {
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    try await withDeadline(on: connection) { try await body(connection) }
                }
            } catch {
                let fault = Self.fault(error, statement: statement)
                attempt += 1
                if let fault = fault as? StoreFault, fault.code == "40001" || fault.code == "40P01", attempt < 10 { continue }
                throw fault
            }
        }
    }

    /// Runs `body` on a pooled connection, outside any transaction, within ``callTimeout``.
    func read<Result: Sendable>(_ statement: String = #function,
                                _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withConnection { connection in
                try await withDeadline(on: connection) { try await body(connection) }
            }
        } catch {
            throw Self.fault(error, statement: statement)
        }
    }

    /// Runs `body` on `connection` and gives up after ``callTimeout``: the connection is closed,
    /// which fails the statement under way, so a silent connection (no reset, no answer) ends
    /// the call instead of holding it forever. The pool opens a new connection in its place.
    private func withDeadline<Result>(on connection: PostgresConnection, isolation: isolated (any Actor)? = #isolation,
                                      _ body: () async throws -> Result) async throws -> Result {
        let watchdog = Task { [callTimeout] in
            guard (try? await Task.sleep(for: callTimeout)) != nil else { return false }
            let _: EventLoopFuture<Void> = connection.close()
            return true
        }
        do {
            let result = try await body()
            watchdog.cancel()
            return result
        } catch {
            watchdog.cancel()
            if await watchdog.value { throw StoreDeadlineExceeded() }
            throw error
        }
    }

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
                return StoreFault(transientStates(state) ? .transient : .definite, statement: statement, code: state,
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

    /// SQLSTATEs that say the work did not happen for a reason of the server's: connection
    /// exceptions (08), serialization failure and deadlock, insufficient resources (53, too many
    /// connections among them), statement and lock timeouts, an idle transaction ended, and the
    /// server shutting down or starting (57P01-57P03).
    static func transientStates(_ state: String) -> Bool {
        state.hasPrefix("08") || state.hasPrefix("53")
            || ["40001", "40P01", "57014", "55P03", "25P03", "57P01", "57P02", "57P03"].contains(state)
    }
}
