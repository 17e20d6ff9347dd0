import Synchronization

/// A client HTTP/2 connection over TLS. It owns one event-loop thread that owns the socket,
/// the SSL object and the nghttp2 session; `send` hops there once and is resumed once.
/// Many concurrent `send` calls share the connection as separate streams.
public final class HTTP2ClientConnection: Sendable {
    public let host: String
    public let port: Int
    private let loop: EventLoop
    private let channel: HTTP2ClientChannel
    private let shared: HTTP2ClientSharedState
    private let nextToken = Atomic<UInt64>(0)

    private init(host: String, port: Int, loop: EventLoop, channel: HTTP2ClientChannel, shared: HTTP2ClientSharedState) {
        self.host = host
        self.port = port
        self.loop = loop
        self.channel = channel
        self.shared = shared
    }

    /// Closing on release stops the loop thread; otherwise it would keep itself alive.
    deinit { close() }

    /// Connects, completes TLS (ALPN must select "h2") and waits for the server's SETTINGS, so
    /// the returned connection already knows the peer's MAX_CONCURRENT_STREAMS.
    public static func connect(host: String, port: Int, tls: TLSConfiguration, timeout: Duration,
                               options: HTTP2ClientOptions = HTTP2ClientOptions()) async throws -> HTTP2ClientConnection {
        let context = try TLSContext(client: tls)
        let loop = EventLoop(name: "h2-client \(host):\(port)")
        let shared = HTTP2ClientSharedState()
        let channel = HTTP2ClientChannel(loop: loop, tlsContext: context, options: options, shared: shared)
        let connection = HTTP2ClientConnection(host: host, port: port, loop: loop, channel: channel, shared: shared)
        let serverName = tls.serverName ?? host
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let accepted = loop.execute {
                channel.start(host: host, port: port, serverName: serverName, timeout: timeout, continuation: continuation)
            }
            if !accepted { continuation.resume(throwing: HTTP2Error.connectFailed("the event loop is not running")) }
        }
        return connection
    }

    /// Sends one request and waits for its complete response, for at most `timeout` (queueing
    /// for a free stream included). Errors are `HTTP2Error`s, or `CancellationError`.
    public func send(_ request: HTTP2Request, timeout: Duration) async throws -> HTTP2Response {
        try Task.checkCancellation()
        let token = nextToken.add(1, ordering: .relaxed).newValue
        let deadline = MonotonicTime.now() + timeout
        let channel = self.channel
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTP2Response, any Error>) in
                let accepted = loop.execute {
                    channel.enqueue(HTTP2ClientStream(token: token, request: request, deadline: deadline, continuation: continuation))
                }
                if !accepted {
                    continuation.resume(throwing: HTTP2Error.notProcessed("the connection is closed; the request was not sent"))
                }
            }
        } onCancel: {
            loop.execute { channel.cancel(token: token) }
        }
    }

    /// The peer's current SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxConcurrentStreams: Int { shared.maxConcurrentStreams.load(ordering: .relaxed) }

    /// False once the connection closed, failed, or received GOAWAY: send new work elsewhere.
    public var isUsable: Bool { shared.usable.load(ordering: .relaxed) }

    /// Streams currently open on the wire.
    public var openStreams: Int { shared.openStreams.load(ordering: .relaxed) }

    /// Requests waiting for a stream slot.
    public var queuedRequests: Int { shared.queuedRequests.load(ordering: .relaxed) }

    /// Sends GOAWAY and closes; queued requests fail as `.notProcessed`, open ones as
    /// `.connectionClosed`.
    public func close() {
        let channel = self.channel
        loop.execute { channel.closeByClient() }
    }

    /// Closes the connection and waits until its loop thread has released the socket, the TLS
    /// session and nghttp2's: a process that exits right after has no thread left inside
    /// OpenSSL while its exit handlers clean up.
    public func shutdown() async {
        close()
        await loop.shutdown()
    }
}
