/// What an online backup wrote.
public struct BackupReport: Sendable, Equatable {
    /// The copy, an absolute path.
    public var path: String
    public var bytes: Int64
    public var pages: Int
    /// How long the copy took, all of it outside any write transaction.
    public var duration: Duration

    public init(path: String, bytes: Int64, pages: Int, duration: Duration) {
        self.path = path
        self.bytes = bytes
        self.pages = pages
        self.duration = duration
    }
}
