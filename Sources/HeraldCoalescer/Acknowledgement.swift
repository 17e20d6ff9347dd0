import HeraldCore

/// What one acknowledgement removed.
public struct Acknowledgement: Hashable, Sendable {
    /// Inbox items removed.
    public var inboxItems: Int
    /// Whether it acknowledged the backlog hand-over.
    public var backlog: Bool

    public init(inboxItems: Int, backlog: Bool) {
        self.inboxItems = inboxItems
        self.backlog = backlog
    }
}
