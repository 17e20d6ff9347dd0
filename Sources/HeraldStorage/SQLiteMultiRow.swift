import GRDB
import GRDBSQLite

/// One statement for many rows: `INSERT … VALUES (…), (…), …` or `… FROM (VALUES …)`.
///
/// A batch of a thousand rows costs a handful of statements instead of a thousand. Rows go in
/// chunks whose sizes are powers of two up to ``largestChunk``, so the writer's statement cache
/// holds at most a few shapes per statement, and every chunk stays under SQLite's limit on bound
/// parameters.
struct SQLiteMultiRow {
    /// Rows in the largest chunk: 256 rows of 12 columns bind 3,072 parameters.
    static let largestChunk = 256

    /// The statement's text for a chunk, given its `VALUES` rows, e.g. `(?, ?), (?, ?)`.
    let sql: @Sendable (String) -> String
    /// Columns bound per row.
    let columns: Int

    /// Runs the statement over `rows`, calling `returned` with each row a `RETURNING` clause yields.
    ///
    /// - Parameters:
    ///   - rows: each row's values, `columns` of them, in order.
    ///   - db: the writer, inside the caller's transaction.
    ///   - returned: called for each returned row (omit for statements without `RETURNING`).
    /// - Throws: `DatabaseError` from SQLite.
    func execute(_ rows: [[DatabaseValue]], in db: Database, returned: ((Row) throws -> Void)? = nil) throws {
        var start = 0
        while start < rows.count {
            let size = Self.chunkSize(remaining: rows.count - start)
            let statement = try db.cachedStatement(sql: sql(Self.placeholders(rows: size, columns: columns)))
            // Bound here, straight into SQLite: building `StatementArguments` for thousands of
            // values went through a generic key-path map per value, on the writer's time.
            statement.setUncheckedArguments(StatementArguments())
            var index: CInt = 1
            for row in rows[start..<(start + size)] {
                for value in row {
                    try Self.bind(value, to: statement, at: index)
                    index += 1
                }
            }
            if let returned {
                let cursor = try Row.fetchCursor(statement)
                while let row = try cursor.next() { try returned(row) }
            } else {
                try statement.execute()
            }
            start += size
        }
    }

    /// Binds `value` to parameter `index` (from 1) of `statement`; SQLite copies text and blobs.
    static func bind(_ value: DatabaseValue, to statement: Statement, at index: CInt) throws {
        let handle = statement.sqliteStatement
        let code: CInt
        switch value.storage {
        case .null: code = sqlite3_bind_null(handle, index)
        case .int64(let integer): code = sqlite3_bind_int64(handle, index, integer)
        case .double(let double): code = sqlite3_bind_double(handle, index, double)
        case .string(let text): code = sqlite3_bind_text(handle, index, text, -1, transient)
        case .blob(let data):
            code = data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, CInt($0.count), transient) }
        }
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "binding parameter \(index)")
        }
    }

    /// SQLite's "copy this value now" destructor.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    /// The largest power of two up to ``largestChunk`` that fits in what is left.
    static func chunkSize(remaining: Int) -> Int {
        var size = largestChunk
        while size > remaining { size /= 2 }
        return size
    }

    /// `(?, ?, ?), (?, ?, ?)` for `rows` rows of `columns` values.
    static func placeholders(rows: Int, columns: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return Array(repeating: row, count: rows).joined(separator: ", ")
    }
}
