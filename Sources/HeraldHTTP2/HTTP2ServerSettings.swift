/// Per-connection limits a server advertises and enforces.
public struct HTTP2ServerSettings: Sendable {
    /// Initial SETTINGS_MAX_CONCURRENT_STREAMS; the APNs sandbox starts at 1 and raises it later
    /// through `HTTP2ServerConnectionContext.setMaxConcurrentStreams`.
    public var maxConcurrentStreams: Int
    /// SETTINGS_INITIAL_WINDOW_SIZE for request bodies.
    public var initialWindowSize: Int
    /// Larger request bodies are reset with CANCEL instead of being buffered.
    public var maxRequestBodySize: Int
    /// A client that has not finished TLS within this time is dropped.
    public var handshakeTimeout: Duration
    /// Fault injection for tests and the sandbox: false makes the server ignore PINGs, so
    /// clients can exercise their dead-connection detection.
    public var acknowledgesPings: Bool

    public init(maxConcurrentStreams: Int = 100, initialWindowSize: Int = 65_535,
                maxRequestBodySize: Int = 8 << 20, handshakeTimeout: Duration = .seconds(10),
                acknowledgesPings: Bool = true) {
        self.acknowledgesPings = acknowledgesPings
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.maxRequestBodySize = maxRequestBodySize
        self.handshakeTimeout = handshakeTimeout
    }
}
