/// The answer of `POST /v1/admin/backup`: a consistent copy of the store, written on the server.
public struct BackupResult: Codable, Sendable, Hashable {
    /// Where the copy was written, on the server.
    public var path: String
    /// The size of the copy.
    public var bytes: Int64
    /// The database pages copied.
    public var pages: Int64
    /// The copy's integrity check: `ok`.
    public var integrity: String
}
