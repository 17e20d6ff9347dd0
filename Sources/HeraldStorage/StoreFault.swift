/// A store call that failed for a reason of the database's, not of the request's: a dropped or
/// silent connection, a server shutting down, a lock or statement timeout, a busy database.
///
/// Each backend turns its own errors into this in one place (``StoreFault/Kind`` says whether
/// trying again later can succeed), so callers decide retry or refusal without knowing the
/// backend, and logs carry the database's code, its message and the statement's name, never a
/// bound value (payloads and tokens are user data).
public struct StoreFault: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable {
        /// The work did not happen, or may not have: the same call may succeed later.
        case transient
        /// The database refused the statement itself (a constraint, a syntax error): final.
        case definite
        /// The database had no room to write (its disk is full): nothing was written, and the
        /// same call succeeds once space is freed.
        case storageFull
    }

    public var kind: Kind
    /// The store call that failed, e.g. `claimDue`.
    public var statement: String
    /// PostgreSQL's SQLSTATE, or SQLite's result code, when the server answered at all.
    public var code: String?
    /// The database's own message, or what happened to the connection.
    public var message: String

    public init(_ kind: Kind, statement: String, code: String?, message: String) {
        self.kind = kind
        self.statement = statement
        self.code = code
        self.message = message
    }

    /// Whether the same call may succeed later: everything but a refused statement.
    public var isTransient: Bool { kind != .definite }

    public var description: String {
        "\(kind.rawValue) store fault in \(statement)" + (code.map { " (SQLSTATE \($0))" } ?? "") + ": \(message)"
    }
}

/// A store call that did not finish within its deadline. The connection it ran on is closed, so
/// a silent connection (a middlebox that lost its state) cannot hold the call forever.
public struct StoreDeadlineExceeded: Error, Sendable {
    public init() {}
}
