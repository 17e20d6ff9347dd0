import Synchronization

/// What a request handler may know and do about the connection its request came on. Actions
/// are forwarded to the connection's event loop, so handlers may call them from any task.
public final class HTTP2ServerConnectionContext: Sendable {
    /// Unique per server, in accept order.
    public let connectionID: Int
    /// Subject of the verified client certificate (RFC 2253, e.g. "CN=x,OU=y,O=z"), if one was sent.
    public let clientCertificateSubject: String?
    private let loop: EventLoop
    private let channelRef: ChannelReference
    let handledCounter = Atomic<Int>(0)

    /// Weak so that a context kept by a handler does not keep a closed connection alive.
    private final class ChannelReference: @unchecked Sendable {
        weak var channel: HTTP2ServerChannel?
        init(_ channel: HTTP2ServerChannel) { self.channel = channel }
    }

    init(connectionID: Int, clientCertificateSubject: String?, loop: EventLoop, channel: HTTP2ServerChannel) {
        self.connectionID = connectionID
        self.clientCertificateSubject = clientCertificateSubject
        self.loop = loop
        self.channelRef = ChannelReference(channel)
    }

    /// Requests handed to the handler on this connection so far (including the current one).
    public var streamsHandled: Int { handledCounter.load(ordering: .relaxed) }

    /// Sends a SETTINGS frame with a new SETTINGS_MAX_CONCURRENT_STREAMS.
    public func setMaxConcurrentStreams(_ value: Int) {
        let reference = channelRef
        loop.execute { reference.channel?.setMaxConcurrentStreams(value) }
    }

    /// Sends GOAWAY with an explicit last-stream-id. Streams above it are dropped unprocessed;
    /// if their handlers already started, prefer `goAwayAfterCurrent()`.
    public func goAway(lastStreamID: Int32, errorCode: UInt32 = 0) {
        let reference = channelRef
        loop.execute { reference.channel?.goAway(lastStreamID: lastStreamID, errorCode: errorCode) }
    }

    /// Sends GOAWAY whose last-stream-id is the highest stream already handed to a handler, so
    /// every request the client sees as "not processed" really was not.
    public func goAwayAfterCurrent(errorCode: UInt32 = 0) {
        let reference = channelRef
        loop.execute { reference.channel?.goAway(lastStreamID: nil, errorCode: errorCode) }
    }

    /// Like `goAwayAfterCurrent()`, but once those streams are answered the connection is closed
    /// at once, with the client's unread requests still in the socket (fault injection: the
    /// client sees its writes fail while the answers sit in its receive buffer).
    public func goAwayAfterCurrentThenCloseAbruptly() {
        let reference = channelRef
        loop.execute { reference.channel?.goAway(lastStreamID: nil, errorCode: 0, thenCloseAbruptly: true) }
    }

    /// Resets a stream instead of answering it (e.g. REFUSED_STREAM = 7 says "not processed");
    /// the handler's eventual response for that stream is discarded.
    public func resetStream(_ streamID: Int32, errorCode: UInt32) {
        let reference = channelRef
        loop.execute { reference.channel?.resetStream(streamID, errorCode: errorCode) }
    }

    /// Drops the connection without GOAWAY (fault injection).
    public func closeAbruptly() {
        let reference = channelRef
        loop.execute { reference.channel?.fail(.connectionClosed("closed by the server handler")) }
    }
}
