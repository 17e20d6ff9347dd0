import GRDB

/// The embedded store's connections. Every read and write of ``SQLiteStore`` goes through here,
/// so the SQLite errors a caller can act on become ``StoreFault``s in one place, named after the
/// store call that met them.
///
/// ```swift
/// let connections = SQLiteConnections(pool: pool)
/// let count = try await connections.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
/// ```
struct SQLiteConnections: Sendable {
    let pool: DatabasePool

    /// Runs `value` in a read transaction (a WAL snapshot) on one of the readers.
    ///
    /// - Parameters:
    ///   - call: the store call, for the fault; the caller's name by default.
    ///   - value: reads and returns what the call answers.
    /// - Throws: ``StoreFault`` for a full disk; otherwise what SQLite or `value` threw.
    func read<T: Sendable>(_ call: String = #function, _ value: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(value)
        } catch {
            throw Self.fault(error, in: call)
        }
    }

    /// Runs `updates` in one write transaction on the writer, committed before it returns.
    ///
    /// - Parameters:
    ///   - call: the store call, for the fault; the caller's name by default.
    ///   - updates: writes, and returns what the call answers.
    /// - Throws: ``StoreFault`` for a full disk (nothing was written); otherwise what SQLite or
    ///   `updates` threw.
    func write<T: Sendable>(_ call: String = #function, _ updates: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(updates)
        } catch {
            throw Self.fault(error, in: call)
        }
    }

    /// SQLite's answer as a ``StoreFault`` when a caller can act on it: a full disk
    /// (`SQLITE_FULL`) rolled the transaction back, and the same call succeeds once space is
    /// freed. Every other error passes through as it is.
    static func fault(_ error: any Error, in call: String) -> any Error {
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL else { return error }
        return StoreFault(.storageFull, statement: call, code: "\(error.extendedResultCode.rawValue)",
                          message: error.message ?? "database or disk is full")
    }
}
