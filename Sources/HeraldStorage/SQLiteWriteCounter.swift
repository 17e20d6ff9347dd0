import Foundation
import GRDBSQLite
import Synchronization

/// Counts the work SQLite connections do, for the benchmarks that compare the store with a bare
/// SQLite loop (issue 23: statements, transactions, rows, index entries and pages per
/// occurrence). Opt-in: a store opened without one installs nothing and costs nothing extra.
///
/// It listens with `sqlite3_trace_v2(SQLITE_TRACE_PROFILE)`, which SQLite calls once each time a
/// statement finishes a run, on the connection's own thread. It installs no commit, update or WAL
/// hook: GRDB owns the commit and rollback hooks, and `PRAGMA wal_autocheckpoint` owns the WAL
/// hook, so taking them over would change what is measured. Per finished statement it reads:
/// - `sqlite3_stmt_readonly`: whether it can write (BEGIN and COMMIT count as read-only);
/// - `sqlite3_changes64`, after an INSERT, UPDATE or DELETE: the rows it wrote, charged to the
///   table named in its SQL (`ON CONFLICT DO NOTHING` that did nothing writes 0);
/// - `sqlite3_get_autocommit`: a connection back in autocommit mode after a statement that
///   wrote (itself, or earlier in the transaction) has committed one write transaction;
/// - `SQLITE_DBSTATUS_CACHE_WRITE`: pages the connection's pager has written, which in WAL mode
///   are WAL frames (at commit, or when a large transaction spills its cache).
///
/// Statements are counted per connection role: ``Role/writer`` for connections that can write
/// (the store's writer, and its checkpointer, whose checkpoints are C calls rather than
/// statements), ``Role/reader`` for a pool's read-only connections.
public final class SQLiteWriteCounter: Sendable {
    public enum Role: Sendable {
        case writer
        case reader
    }

    /// What the counted connections did since the last ``reset()``.
    public struct Counts: Sendable {
        /// Statement runs on writer connections: reads, writes, BEGIN and COMMIT alike.
        public var statements = 0
        /// Of those, the ones that can write (not `sqlite3_stmt_readonly`).
        public var writeStatements = 0
        /// Statement runs on reader connections.
        public var readerStatements = 0
        /// Transactions committed that wrote something.
        public var transactions = 0
        /// Rows inserted, updated or deleted, in all and by table.
        public var rowsWritten = 0
        public var rowsByTable: [String: Int] = [:]
        /// WAL frames (pages) the writer connections wrote.
        public var pagesWritten = 0
        /// Statement runs by SQL text (whitespace collapsed), readers' prefixed with "reader: ".
        public var statementsBySQL: [String: Int] = [:]
    }

    private struct Connection {
        var role: Role
        var wroteInTransaction = false
        var pagesSeen: Int64 = 0
    }

    private struct State {
        var counts = Counts()
        var connections: [Int: Connection] = [:]
        /// The table each distinct SQL text writes to (nil: none), parsed once.
        var targets: [String: String?] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public var counts: Counts { state.withLock { $0.counts } }

    /// Starts counting afresh; connections stay installed.
    public func reset() {
        state.withLock { $0.counts = Counts() }
    }

    /// Counts what `connection` does from now on, until it closes. The counter must outlive it.
    public func install(on connection: OpaquePointer?, role: Role) {
        guard let connection else { return }
        state.withLock { $0.connections[Int(bitPattern: connection)] = Connection(role: role,
                                                                                  pagesSeen: Self.pagesWritten(connection)) }
        sqlite3_trace_v2(connection, UInt32(SQLITE_TRACE_PROFILE), { _, context, statement, _ in
            guard let context, let statement else { return 0 }
            Unmanaged<SQLiteWriteCounter>.fromOpaque(context).takeUnretainedValue().finished(OpaquePointer(statement))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called on the connection's thread when `statement` finished a run.
    private func finished(_ statement: OpaquePointer) {
        guard let connection = sqlite3_db_handle(statement) else { return }
        let writes = sqlite3_stmt_readonly(statement) == 0
        let sql = Self.normalized(sqlite3_sql(statement).map { String(cString: $0) } ?? "")
        let changes = Int(sqlite3_changes64(connection))
        let autocommit = sqlite3_get_autocommit(connection) != 0
        let pages = Self.pagesWritten(connection)
        state.withLock { state in
            let key = Int(bitPattern: connection)
            var link = state.connections[key] ?? Connection(role: .writer, pagesSeen: pages)
            defer { state.connections[key] = link }
            guard link.role == .writer else {
                state.counts.readerStatements += 1
                state.counts.statementsBySQL["reader: " + sql, default: 0] += 1
                return
            }
            state.counts.statements += 1
            state.counts.statementsBySQL[sql, default: 0] += 1
            state.counts.pagesWritten += Int(max(0, pages - link.pagesSeen))
            link.pagesSeen = pages
            if writes {
                state.counts.writeStatements += 1
                link.wroteInTransaction = true
                let target: String?
                if let known = state.targets[sql] {
                    target = known
                } else {
                    target = Self.writtenTable(sql)
                    state.targets[sql] = .some(target)
                }
                if let target {
                    state.counts.rowsWritten += changes
                    state.counts.rowsByTable[target, default: 0] += changes
                }
            }
            if sql.uppercased().hasPrefix("ROLLBACK"), !sql.uppercased().hasPrefix("ROLLBACK TO") {
                link.wroteInTransaction = false
            }
            if autocommit, link.wroteInTransaction {
                state.counts.transactions += 1
                link.wroteInTransaction = false
            }
        }
    }

    private static func pagesWritten(_ connection: OpaquePointer) -> Int64 {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(connection, SQLITE_DBSTATUS_CACHE_WRITE, &current, &highest, 0)
        return Int64(current)
    }

    /// The SQL on one line, runs of whitespace made single spaces.
    static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The table an INSERT, REPLACE, UPDATE or DELETE writes to; nil for anything else.
    static func writtenTable(_ sql: String) -> String? {
        let words = sql.split(separator: " ").map { $0.uppercased() }
        guard let verb = words.first else { return nil }
        var index: Int
        switch verb {
        case "INSERT", "REPLACE":
            guard let into = words.firstIndex(of: "INTO") else { return nil }
            index = into + 1
        case "UPDATE":
            index = 1
            if words.count > 2, words[1] == "OR" { index = 3 }
        case "DELETE":
            guard words.count > 1, words[1] == "FROM" else { return nil }
            index = 2
        default:
            return nil
        }
        guard index < words.count else { return nil }
        let name = sql.split(separator: " ")[index]
        return String(name.prefix { $0 != "(" }).trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
    }
}
