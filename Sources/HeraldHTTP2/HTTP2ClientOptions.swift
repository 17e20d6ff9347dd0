/// Tuning for one client connection; the defaults suit APNs (few long-lived connections).
public struct HTTP2ClientOptions: Sendable {
    /// Send a PING after this long without receiving anything; nil disables idle PINGs.
    public var pingInterval: Duration?
    /// A PING not acknowledged within this time marks the connection dead.
    public var pingTimeout: Duration
    /// Requests waiting for a free stream beyond this are rejected with `.queueFull`.
    public var maxQueuedRequests: Int
    /// Our SETTINGS_INITIAL_WINDOW_SIZE: how much response body a stream may receive unacknowledged.
    public var initialWindowSize: Int
    /// The connection-level receive window.
    public var connectionWindowSize: Int
    /// Called on the loop thread when the peer sends GOAWAY (for metrics); must return at once.
    public var onGoAway: (@Sendable () -> Void)?

    public init(pingInterval: Duration? = .seconds(60), pingTimeout: Duration = .seconds(10),
                maxQueuedRequests: Int = 10_000, initialWindowSize: Int = 1 << 20,
                connectionWindowSize: Int = 4 << 20, onGoAway: (@Sendable () -> Void)? = nil) {
        self.onGoAway = onGoAway
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.maxQueuedRequests = maxQueuedRequests
        self.initialWindowSize = initialWindowSize
        self.connectionWindowSize = connectionWindowSize
    }
}
