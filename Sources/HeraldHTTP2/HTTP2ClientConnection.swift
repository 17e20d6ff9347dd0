import Synchronization

/// A client HTTP/2 connection over TLS, driven by one event loop thread that owns the socket, the
/// SSL object and the nghttp2 session. Requests cross onto that thread in batches: `send` hands a
/// whole batch over with one hop and is answered once, with one result per request.
public final class HTTP2ClientConnection: Sendable {
    public let host: String
    public let port: Int
    private let loop: EventLoop
    private let channel: HTTP2ClientChannel
    private let shared: HTTP2ClientSharedState

    private init(host: String, port: Int, loop: EventLoop, channel: HTTP2ClientChannel, shared: HTTP2ClientSharedState) {
        self.host = host
        self.port = port
        self.loop = loop
        self.channel = channel
        self.shared = shared
    }

    /// Closing on release ends the connection (and stops its loop if it has one of its own).
    deinit { close() }

    /// Connects, completes TLS (ALPN must select "h2") and waits for the server's SETTINGS, so
    /// the returned connection already knows the peer's MAX_CONCURRENT_STREAMS.
    ///
    /// - Parameters:
    ///   - tls: the credential's loaded TLS setup, shared with the other connections that use it.
    ///   - loops: the loops to run on; nil gives the connection a loop thread of its own.
    /// - Throws: `HTTP2Error.connectFailed`, `.tls` or `.alpnNotNegotiated`.
    public static func connect(host: String, port: Int, tls: HTTP2ClientTLS, timeout: Duration,
                               options: HTTP2ClientOptions = HTTP2ClientOptions(),
                               loops: HTTP2EventLoops? = nil) async throws -> HTTP2ClientConnection {
        let loop = loops?.next() ?? EventLoop(name: "h2-client \(host):\(port)")
        let shared = HTTP2ClientSharedState()
        // A view of the shared context that knows the server, so its TLS session can be resumed.
        let tlsContext = tls.context.forPeer(host: host, port: port)
        let channel = HTTP2ClientChannel(loop: loop, tlsContext: tlsContext, options: options, connectTimeout: timeout,
                                         shared: shared, stopsLoopOnClose: loops == nil)
        let connection = HTTP2ClientConnection(host: host, port: port, loop: loop, channel: channel, shared: shared)
        let serverName = tls.configuration.serverName ?? host
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let accepted = loop.execute {
                channel.start(host: host, port: port, serverName: serverName, continuation: continuation)
            }
            if !accepted { continuation.resume(throwing: HTTP2Error.connectFailed("the event loop is not running")) }
        }
        return connection
    }

    /// Loads `tls` for this one connection; prefer sharing an ``HTTP2ClientTLS`` between connections.
    public static func connect(host: String, port: Int, tls: TLSConfiguration, timeout: Duration,
                               options: HTTP2ClientOptions = HTTP2ClientOptions(),
                               loops: HTTP2EventLoops? = nil) async throws -> HTTP2ClientConnection {
        try await connect(host: host, port: port, tls: HTTP2ClientTLS(tls), timeout: timeout, options: options, loops: loops)
    }

    /// Sends a batch of requests and calls `completion` once, on the loop thread, with one result
    /// per request in order. Each request gets at most `timeout` (waiting for a stream included).
    ///
    /// `completion` must return quickly: it runs on the thread that drives the connection.
    ///
    /// - Returns: what cancels the batch: its requests end as `.cancelled`, open streams reset.
    @discardableResult
    public func send(_ requests: [HTTP2Request], timeout: Duration,
                     completion: @escaping @Sendable ([Result<HTTP2Response, HTTP2Error>]) -> Void) -> @Sendable () -> Void {
        submit(requests, timeout: timeout, completion: completion)
    }

    /// Sends a batch of requests and returns one result per request, in order.
    public func send(_ requests: [HTTP2Request], timeout: Duration) async -> [Result<HTTP2Response, HTTP2Error>] {
        guard !requests.isEmpty else { return [] }
        let cancellation = HTTP2Cancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Result<HTTP2Response, HTTP2Error>], Never>) in
                cancellation.add(self.submit(requests, timeout: timeout) { continuation.resume(returning: $0) })
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Sends one request and waits for its complete response, for at most `timeout` (queueing
    /// for a free stream included).
    ///
    /// - Throws: an `HTTP2Error`; `.cancelled` when the calling task is cancelled.
    public func send(_ request: HTTP2Request, timeout: Duration) async throws(HTTP2Error) -> HTTP2Response {
        if Task.isCancelled { throw .cancelled }
        return try await send([request], timeout: timeout)[0].get()
    }

    /// Hands a batch to the loop; returns how to cancel it.
    private func submit(_ requests: [HTTP2Request], timeout: Duration,
                        completion: @escaping @Sendable ([Result<HTTP2Response, HTTP2Error>]) -> Void) -> @Sendable () -> Void {
        let deadline = MonotonicTime.now() + timeout
        let batch = HTTP2ClientBatch(count: requests.count, completion: completion)
        let channel = self.channel
        let accepted = loop.execute { channel.enqueue(batch, requests: requests, deadline: deadline) }
        if !accepted {
            completion(requests.map { _ in .failure(.notProcessed("the connection is closed; the request was not sent")) })
        }
        return { [loop] in _ = loop.execute { channel.cancel(batch) } }
    }

    /// The peer's current SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxConcurrentStreams: Int { shared.maxConcurrentStreams.load(ordering: .relaxed) }

    /// False once the connection closed, failed, or received GOAWAY: send new work elsewhere.
    public var isUsable: Bool { shared.usable.load(ordering: .relaxed) }

    /// Streams currently open on the wire.
    public var openStreams: Int { shared.openStreams.load(ordering: .relaxed) }

    /// Requests waiting for a stream slot.
    public var queuedRequests: Int { shared.queuedRequests.load(ordering: .relaxed) }

    /// Responses received so far.
    public var answeredRequests: Int { shared.answered.load(ordering: .relaxed) }

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
        let channel = self.channel
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let accepted = loop.execute {
                channel.closeByClient()
                channel.whenClosed(continuation)
            }
            if !accepted { continuation.resume() }  // the loop stopped, and released the channel with it
        }
        if channel.stopsLoopOnClose { await loop.shutdown() }
    }
}
