import Foundation
import GRDBSQLite

/// The SQLite C API with nothing in between, for the storage floors the engine is compared with.
final class RawSQLite {
    private var handle: OpaquePointer?

    init(path: String, readOnly: Bool = false) throws {
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let code = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else {
            defer { sqlite3_close(handle) }
            throw RawSQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
        }
        // Wait rather than fail when another connection (a closing store's checkpointer) holds a lock.
        sqlite3_busy_timeout(handle, 10_000)
    }

    deinit {
        sqlite3_close(handle)
    }

    /// SQLITE_TRANSIENT: SQLite copies bound text before the call returns.
    fileprivate static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    /// The connection itself, for instrumentation (`SQLiteWriteCounter`).
    var connection: OpaquePointer? { handle }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil))
        return Statement(statement!, owner: self)
    }

    fileprivate func check(_ code: Int32) throws {
        guard code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE else {
            throw RawSQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// A prepared statement: integer and text bindings, integer columns.
    final class Statement {
        private let pointer: OpaquePointer
        private let owner: RawSQLite

        fileprivate init(_ pointer: OpaquePointer, owner: RawSQLite) {
            self.pointer = pointer
            self.owner = owner
        }

        deinit {
            sqlite3_finalize(pointer)
        }

        func bind(_ values: Int64...) {
            sqlite3_reset(pointer)
            for (offset, value) in values.enumerated() {
                sqlite3_bind_int64(pointer, Int32(offset + 1), value)
            }
        }

        enum Value {
            case int(Int64)
            case text(String)
            case null
        }

        /// Resets the statement and binds `values` to ?1, ?2, …; text is copied by SQLite.
        func bind(values: [Value]) {
            sqlite3_reset(pointer)
            for (offset, value) in values.enumerated() {
                let position = Int32(offset + 1)
                switch value {
                case .int(let number): sqlite3_bind_int64(pointer, position, number)
                case .text(let text): sqlite3_bind_text(pointer, position, text, -1, RawSQLite.transient)
                case .null: sqlite3_bind_null(pointer, position)
                }
            }
        }

        /// Ends the current run of the statement, so it holds no read open.
        func reset() {
            sqlite3_reset(pointer)
        }

        /// Steps once; true while a row is available.
        func step() throws -> Bool {
            let code = sqlite3_step(pointer)
            try owner.check(code)
            return code == SQLITE_ROW
        }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(pointer, column) }

        /// A text column, copied out ("" for NULL).
        func text(_ column: Int32) -> String {
            guard let bytes = sqlite3_column_text(pointer, column) else { return "" }
            return String(cString: bytes)
        }

        /// Length in bytes of a text column, read without copying it out.
        func textLength(_ column: Int32) -> Int {
            _ = sqlite3_column_text(pointer, column)
            return Int(sqlite3_column_bytes(pointer, column))
        }
    }
}

struct RawSQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { "sqlite error \(code): \(message)" }
}
