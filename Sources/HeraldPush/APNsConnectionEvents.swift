/// What a pool tells its owner about its connections (for metrics).
public struct APNsConnectionEvents: Sendable {
    /// A connection attempt ended: true when it opened.
    public var connected: @Sendable (_ succeeded: Bool) -> Void
    /// The server sent GOAWAY on one of the pool's connections (called on its loop thread).
    public var receivedGoAway: @Sendable () -> Void

    public init(connected: @escaping @Sendable (Bool) -> Void = { _ in }, receivedGoAway: @escaping @Sendable () -> Void = {}) {
        self.connected = connected
        self.receivedGoAway = receivedGoAway
    }
}
