import CNGHTTP2

/// A request being received, handled, and answered on one stream. Loop thread only.
final class HTTP2ServerStream {
    let id: Int32
    var method = ""
    var path = ""
    var authority = ""
    var scheme = ""
    var headers: [HTTP2Header] = []
    var body: [UInt8] = []
    var dispatched = false
    var responseBody: [UInt8] = []
    var responseOffset = 0

    init(id: Int32) { self.id = id }
}

/// The server half of one HTTP/2 connection: assembles requests, runs the handler for each in
/// its own task (a slow handler never blocks other streams), and writes the responses back.
/// Confined to the server's event loop.
final class HTTP2ServerChannel: HTTP2Channel, @unchecked Sendable {
    typealias Handler = @Sendable (HTTP2ServerRequest, HTTP2ServerConnectionContext) async -> HTTP2Response

    let connectionID: Int
    private let settings: HTTP2ServerSettings
    private let handler: Handler
    private let onClose: (HTTP2ServerChannel) -> Void
    private var context: HTTP2ServerConnectionContext?
    private var streams: [Int32: HTTP2ServerStream] = [:]
    private var highestDispatched: Int32 = 0
    private var goAwaySent = false
    /// The last stream our GOAWAY promised to process; nothing above it is dispatched.
    private var goAwayLastStreamID: Int32?
    /// Fault injection: once GOAWAY's streams are answered, close at once, unread input and all
    /// (the kernel then resets the connection), instead of the graceful close.
    private var closesAbruptlyAfterGoAway = false
    private let handshakeDeadline: MonotonicTime

    init(loop: EventLoop, tlsContext: TLSContext, connectionID: Int, settings: HTTP2ServerSettings,
         handler: @escaping Handler, onClose: @escaping (HTTP2ServerChannel) -> Void) {
        self.connectionID = connectionID
        self.settings = settings
        self.handler = handler
        self.onClose = onClose
        self.handshakeDeadline = MonotonicTime.now() + settings.handshakeTimeout
        super.init(loop: loop, tlsContext: tlsContext)
    }

    override func handshakeCompleted(_ tls: TLSConnection) throws(HTTP2Error) {
        let selected = tls.negotiatedALPN
        guard selected == "h2" else { throw .alpnNotNegotiated(selected: selected) }
        let session = try NGHTTP2Session(server: true, channel: self, autoPingAck: settings.acknowledgesPings)
        self.session = session
        let rc = session.submitSettings([
            (NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, UInt32(clamping: settings.maxConcurrentStreams)),
            (NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, UInt32(clamping: settings.initialWindowSize)),
        ])
        guard rc == 0 else { throw .protocolError("cannot submit SETTINGS: \(NGHTTP2Session.describe(rc))") }
        context = HTTP2ServerConnectionContext(connectionID: connectionID, clientCertificateSubject: tls.peerCertificateSubject,
                                               loop: loop, channel: self)
    }

    override var nextDeadline: MonotonicTime? {
        state == .handshaking ? handshakeDeadline : super.nextDeadline
    }

    override func tick(now: MonotonicTime) {
        if state == .handshaking, now >= handshakeDeadline {
            fail(.tls("the client did not complete the handshake within \(settings.handshakeTimeout)"))
        }
        super.tick(now: now)
    }

    /// GOAWAY exchanged and every stream answered: close without an RST, which would destroy
    /// answers the client has not read yet.
    override func sessionFinished() {
        if closesAbruptlyAfterGoAway {
            fail(.connectionClosed("closed abruptly after GOAWAY (fault injection)"))
        } else {
            closeGracefully(.connectionClosed("the HTTP/2 session ended"))
        }
    }

    // MARK: receiving

    override func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if frame.pointee.hd.type == NGHTTP2_HEADERS.byte, frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
            let id = frame.pointee.hd.stream_id
            streams[id] = HTTP2ServerStream(id: id)
        }
        return 0
    }

    override func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard frame.pointee.hd.type == NGHTTP2_HEADERS.byte, let stream = streams[frame.pointee.hd.stream_id] else { return 0 }
        let valueString = String(decoding: value, as: UTF8.self)
        if name.first == UInt8(ascii: ":") {
            switch String(decoding: name, as: UTF8.self) {
            case ":method": stream.method = valueString
            case ":path": stream.path = valueString
            case ":authority": stream.authority = valueString
            case ":scheme": stream.scheme = valueString
            default: break
            }
        } else {
            stream.headers.append((String(decoding: name, as: UTF8.self), valueString))
        }
        return 0
    }

    override func onDataChunk(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let stream = streams[streamID] else { return 0 }
        if stream.body.count + data.count > settings.maxRequestBodySize, let session {
            streams[streamID] = nil
            _ = nghttp2_submit_rst_stream(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
            return 0
        }
        stream.body.append(contentsOf: data)
        return 0
    }

    override func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        if header.type == NGHTTP2_HEADERS.byte || header.type == NGHTTP2_DATA.byte,
           header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
           let stream = streams[header.stream_id], !stream.dispatched {
            dispatch(stream)
        }
        return 0
    }

    override func onStreamClosed(streamID: Int32, errorCode: UInt32) -> Int32 {
        streams[streamID] = nil
        return 0
    }

    private func dispatch(_ stream: HTTP2ServerStream) {
        guard let context, let session else { return }
        if let limit = goAwayLastStreamID, stream.id > limit {
            // Beyond what our GOAWAY promised: refuse it, so the client knows it was not processed.
            _ = nghttp2_submit_rst_stream(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id,
                                          NGHTTP2_REFUSED_STREAM.rawValue)
            scheduleFlush()
            return
        }
        stream.dispatched = true
        highestDispatched = max(highestDispatched, stream.id)
        context.handledCounter.add(1, ordering: .relaxed)
        let request = HTTP2ServerRequest(streamID: stream.id, method: stream.method, path: stream.path,
                                         authority: stream.authority, scheme: stream.scheme,
                                         headers: stream.headers, body: stream.body)
        stream.body = []
        let handler = self.handler
        let loop = self.loop
        let id = stream.id
        Task {
            let response = await handler(request, context)
            loop.execute { [self] in respond(streamID: id, with: response) }
        }
    }

    // MARK: sending

    private func respond(streamID: Int32, with response: HTTP2Response) {
        guard state == .open, let session, let stream = streams[streamID] else { return }
        var headers: [HTTP2Header] = [(":status", String(response.status))]
        headers.reserveCapacity(1 + response.headers.count)
        for header in response.headers { headers.append((header.name.lowercased(), header.value)) }
        stream.responseBody = response.body
        let rc: Int32 = NGHTTP2Session.withHeaderBlock(headers) { nva, count in
            if response.body.isEmpty {
                return nghttp2_submit_response(session.pointer, streamID, nva, count, nil)
            }
            var provider = NGHTTP2Session.bodyProvider()
            return nghttp2_submit_response(session.pointer, streamID, nva, count, &provider)
        }
        if rc != 0 {
            _ = nghttp2_submit_rst_stream(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_INTERNAL_ERROR.rawValue)
        }
        scheduleFlush()
    }

    override func readBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(buffer.count, stream.responseBody.count - stream.responseOffset)
        if count > 0 {
            stream.responseBody.withUnsafeBufferPointer { source in
                _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
                    .initialize(from: UnsafeBufferPointer(rebasing: source[stream.responseOffset..<(stream.responseOffset + count)]))
            }
        }
        stream.responseOffset += count
        if stream.responseOffset >= stream.responseBody.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    // MARK: connection control (via the context)

    func setMaxConcurrentStreams(_ value: Int) {
        guard state == .open, let session else { return }
        _ = session.submitSettings([(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, UInt32(clamping: value))])
        scheduleFlush()
    }

    func resetStream(_ streamID: Int32, errorCode: UInt32) {
        guard state == .open, let session, streams[streamID] != nil else { return }
        _ = nghttp2_submit_rst_stream(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
        streams[streamID] = nil
        scheduleFlush()
    }

    /// nil means "after the requests already handed to handlers".
    func goAway(lastStreamID: Int32?, errorCode: UInt32, thenCloseAbruptly: Bool = false) {
        closesAbruptlyAfterGoAway = closesAbruptlyAfterGoAway || thenCloseAbruptly
        guard state == .open, let session, !goAwaySent else { return }
        goAwaySent = true
        let last = lastStreamID ?? highestDispatched
        goAwayLastStreamID = last
        _ = nghttp2_submit_goaway(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, nil, 0)
        scheduleFlush()
    }

    /// Server shutdown: GOAWAY, then close right away.
    func shutdown() {
        goAway(lastStreamID: nil, errorCode: NGHTTP2_NO_ERROR.rawValue)
        fail(.connectionClosed("the server is shutting down"))
    }

    override func didClose(_ error: HTTP2Error) {
        streams.removeAll()
        onClose(self)
    }
}
