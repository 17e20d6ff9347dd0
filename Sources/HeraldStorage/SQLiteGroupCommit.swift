import GRDB
import Synchronization

/// Writes that arrive while one transaction is being written share the next one.
///
/// Each call runs in a savepoint of its own inside the shared transaction, in arrival order, so
/// it sees the calls before it as a transaction of its own would, and a call that throws rolls
/// back only its own writes. Every caller gets its answer after the commit: nothing is answered
/// before it is durable. A commit that fails fails every call in it. Under concurrent API writes
/// that is one commit, and one hop to GRDB's writer, for many calls, which leaves the writer to
/// the timer's claims.
///
/// ```swift
/// let commits = SQLiteGroupCommit(pool: pool)
/// let key = try await commits.write { db in try insertNotification(db) }
/// ```
final class SQLiteGroupCommit: Sendable {
    /// One call: runs its work in the transaction and returns how to answer it after the commit.
    private struct Call: Sendable {
        let run: @Sendable (Database) -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var waiting: [Call] = []
        var writing = false
    }

    private let pool: DatabasePool
    private let state = Mutex(State())

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs `work` in the next shared write transaction and returns its result once committed.
    ///
    /// - Parameters:
    ///   - call: the store call, for a fault; the caller's name by default.
    ///   - work: writes, and returns what the call answers.
    /// - Throws: what `work` threw (its writes rolled back, the others' kept), or the shared
    ///   transaction's error; a full disk as ``StoreFault``.
    func write<T: Sendable>(_ call: String = #function, _ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await committed(work)
        } catch {
            throw SQLiteConnections.fault(error, in: call)
        }
    }

    private func committed<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let call = Call(run: { db in
                do {
                    // An error SQLite answers by rolling back the whole transaction (a full disk,
                    // say) must not leave the calls after it to run outside one.
                    guard db.isInsideTransaction else { throw SharedTransactionRolledBack() }
                    var value: T?
                    try db.inSavepoint {
                        value = try work(db)
                        return .commit
                    }
                    let result = value!
                    return { continuation.resume(returning: result) }
                } catch {
                    return { continuation.resume(throwing: error) }
                }
            }, fail: { error in continuation.resume(throwing: error) })
            let starts = state.withLock { state in
                state.waiting.append(call)
                defer { state.writing = true }
                return !state.writing
            }
            if starts { Task { await self.drain() } }
        }
    }

    /// Writes what waits, one transaction at a time, until nothing does.
    private func drain() async {
        while true {
            let calls = state.withLock { state in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.writing = false }
                return state.waiting
            }
            guard !calls.isEmpty else { return }
            do {
                let answers = try await pool.write { db in calls.map { $0.run(db) } }
                for answer in answers { answer() }
            } catch {
                for call in calls { call.fail(error) }
            }
        }
    }
}

/// A call of a shared transaction that SQLite rolled back before the call's turn: not run.
struct SharedTransactionRolledBack: Error {}
