import CNGHTTP2
import Synchronization

/// State the public connection object reads without hopping to the loop thread.
final class HTTP2ClientSharedState: Sendable {
    let maxConcurrentStreams = Atomic<Int>(0)
    let usable = Atomic<Bool>(false)
    let openStreams = Atomic<Int>(0)
    let queuedRequests = Atomic<Int>(0)
    /// Streams that ended with a response: tells a fresh connection's one-stream start apart.
    let answered = Atomic<Int>(0)
}

/// Requests handed to the loop together, answered together: one hop onto the loop thread and
/// one completion for the whole batch, with one result per request in order.
final class HTTP2ClientBatch: @unchecked Sendable {
    /// Loop-thread only after the hand-off.
    private var results: [Result<HTTP2Response, HTTP2Error>?]
    private var remaining: Int
    private let completion: @Sendable ([Result<HTTP2Response, HTTP2Error>]) -> Void
    var streams: [HTTP2ClientStream] = []

    init(count: Int, completion: @escaping @Sendable ([Result<HTTP2Response, HTTP2Error>]) -> Void) {
        results = Array(repeating: nil, count: count)
        remaining = count
        self.completion = completion
    }

    func finish(_ index: Int, _ result: Result<HTTP2Response, HTTP2Error>) {
        guard results[index] == nil else { return }
        results[index] = result
        remaining -= 1
        if remaining == 0 {
            streams.removeAll()
            completion(results.map { $0! })
        }
    }
}

/// One request from the batch's hand-off until it ends. Lives on the loop thread.
final class HTTP2ClientStream {
    let request: HTTP2Request
    let batch: HTTP2ClientBatch
    let index: Int
    var status = 0
    var headers: [HTTP2Header] = []
    var body: [UInt8] = []
    var bodyOffset = 0

    init(request: HTTP2Request, batch: HTTP2ClientBatch, index: Int) {
        self.request = request
        self.batch = batch
        self.index = index
    }

    var response: HTTP2Response { HTTP2Response(status: status, headers: headers, body: body) }
}

/// The client half of HTTP/2 as a thin shell around `HTTP2ClientStateMachine`: it moves frames
/// between nghttp2 and the machine and carries out the machine's actions. Confined to its event
/// loop thread.
final class HTTP2ClientChannel: HTTP2Channel, @unchecked Sendable {
    let options: HTTP2ClientOptions
    let shared: HTTP2ClientSharedState
    private var machine: HTTP2ClientStateMachine<HTTP2ClientStream>
    private var connectContinuation: CheckedContinuation<Void, any Error>?
    private var headerList = HTTP2RequestHeaderList()
    /// Shared header blocks nghttp2 may still read (NO_COPY) until its output is drained.
    private var blocksInUse: [ObjectIdentifier: HTTP2HeaderBlock] = [:]
    /// Called once the channel closed; `shutdown` waits on it.
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []
    /// nghttp2 ran out of stream ids: the connection takes no new request.
    private var streamIDsExhausted = false
    /// Stops the loop when the channel closes: set for a connection that owns its loop.
    let stopsLoopOnClose: Bool

    init(loop: EventLoop, tlsContext: TLSContext, options: HTTP2ClientOptions, connectTimeout: Duration,
         shared: HTTP2ClientSharedState, stopsLoopOnClose: Bool) {
        self.options = options
        self.shared = shared
        self.stopsLoopOnClose = stopsLoopOnClose
        machine = HTTP2ClientStateMachine(
            configuration: .init(maxQueuedRequests: options.maxQueuedRequests, pingInterval: options.pingInterval,
                                 pingTimeout: options.pingTimeout, connectTimeout: connectTimeout),
            now: MonotonicTime.now())
        super.init(loop: loop, tlsContext: tlsContext)
    }

    func start(host: String, port: Int, serverName: String?, continuation: CheckedContinuation<Void, any Error>) {
        connectContinuation = continuation
        startConnecting(host: host, port: port, serverName: serverName)
    }

    // MARK: requests

    func enqueue(_ batch: HTTP2ClientBatch, requests: [HTTP2Request], deadline: MonotonicTime) {
        batch.streams.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            let stream = HTTP2ClientStream(request: request, batch: batch, index: index)
            batch.streams.append(stream)
            if let refusal = machine.enqueue(stream, deadline: deadline) { batch.finish(index, .failure(refusal)) }
        }
        publishCounts()
        scheduleFlush()
    }

    func cancel(_ batch: HTTP2ClientBatch) {
        for stream in batch.streams { perform(machine.cancel(stream)) }
        publishCounts()
    }

    /// Carries out the machine's actions. Counts are published first, so a caller resumed by a
    /// failure already sees the connection as it now is.
    private func perform(_ actions: [HTTP2ClientStateMachine<HTTP2ClientStream>.Action]) {
        guard !actions.isEmpty else { return }
        publishCounts()
        for action in actions { perform(action) }
    }

    private func perform(_ action: HTTP2ClientStateMachine<HTTP2ClientStream>.Action) {
        switch action {
        case .fail(let stream, let error):
            stream.batch.finish(stream.index, .failure(error))
        case .reset(let id):
            if let session, state == .open {
                _ = nghttp2_submit_rst_stream(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), id.rawValue,
                                              HTTP2ErrorCode.cancel)
                scheduleFlush()
            }
        case .sendPing:
            if let session {
                _ = nghttp2_submit_ping(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
                scheduleFlush()
            }
        case .close(let error):
            fail(error)
        }
    }

    /// Submits one request's HEADERS (and body) to nghttp2.
    private func submit(_ stream: HTTP2ClientStream) -> Result<HTTP2StreamID, HTTP2Error> {
        guard let session else { return .failure(.notProcessed("the connection is not open")) }
        let request = stream.request
        if let block = request.sharedHeaders { blocksInUse[ObjectIdentifier(block)] = block }
        let id: Int32 = headerList.withList(for: request) { list, count in
            if request.body.isEmpty { return nghttp2_submit_request(session.pointer, nil, list, count, nil, nil) }
            var provider = NGHTTP2Session.bodyProvider()
            return nghttp2_submit_request(session.pointer, nil, list, count, &provider, nil)
        }
        guard id > 0 else {
            if id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue { streamIDsExhausted = true }
            return .failure(.notProcessed("could not open a stream: \(NGHTTP2Session.describe(id))"))
        }
        return .success(HTTP2StreamID(id))
    }

    /// What the connection object reads without a hop: all derived from the machine and the
    /// channel, so no event has to remember to update it.
    private func publishCounts() {
        shared.openStreams.store(machine.openStreams, ordering: .relaxed)
        shared.queuedRequests.store(machine.queuedRequests, ordering: .relaxed)
        shared.usable.store(machine.isUsable && !writeFailed && !streamIDsExhausted, ordering: .relaxed)
    }

    // MARK: channel hooks

    override func flushNow() {
        // Nothing new goes onto a connection that can no longer write.
        let failures = writeFailed ? [] : machine.admit { submit($0) }
        perform(failures)
        publishCounts()
        super.flushNow()
        if writeFailed { publishCounts() }  // this flush's write may have failed
        if let session, !session.wantsWrite, !blocksInUse.isEmpty { blocksInUse.removeAll(keepingCapacity: true) }
    }

    override func readable() {
        super.readable()
        machine.received(now: lastReadAt)
    }

    override func handshakeCompleted(_ tls: TLSConnection) throws(HTTP2Error) {
        let selected = tls.negotiatedALPN
        guard selected == "h2" else { throw .alpnNotNegotiated(selected: selected) }
        let session = try NGHTTP2Session(server: false, channel: self)
        self.session = session
        let rc = session.submitSettings([
            (NGHTTP2_SETTINGS_ENABLE_PUSH, 0),
            (NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, UInt32(clamping: options.initialWindowSize)),
        ])
        guard rc == 0 else { throw .protocolError("cannot submit SETTINGS: \(NGHTTP2Session.describe(rc))") }
        _ = nghttp2_session_set_local_window_size(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
                                                  Int32(clamping: options.connectionWindowSize))
    }

    override func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        // A final response after a 1xx replaces the informational one.
        if let stream = machine.request(on: HTTP2StreamID(frame.pointee.hd.stream_id)), stream.status >= 100,
           stream.status < 200 {
            stream.status = 0
            stream.headers.removeAll()
        }
        return 0
    }

    override func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard frame.pointee.hd.type == NGHTTP2_HEADERS.byte,
              let stream = machine.request(on: HTTP2StreamID(frame.pointee.hd.stream_id)) else { return 0 }
        if name.first == UInt8(ascii: ":") {
            if name.elementsEqual(":status".utf8) { stream.status = Self.decimal(value) }
            return 0
        }
        stream.headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        return 0
    }

    /// `:status` read from its bytes, without building a string.
    private static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var value = 0
        for byte in bytes {
            guard byte >= 48, byte <= 57 else { return 0 }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    override func onDataChunk(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 {
        machine.request(on: HTTP2StreamID(streamID))?.body.append(contentsOf: data)
        return 0
    }

    override func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        switch header.type {
        case NGHTTP2_HEADERS.byte, NGHTTP2_DATA.byte:
            let id = HTTP2StreamID(header.stream_id)
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
               let stream = machine.request(on: id), stream.status >= 200, machine.responseEnded(id) != nil {
                shared.answered.add(1, ordering: .relaxed)
                publishCounts()
                stream.batch.finish(stream.index, .success(stream.response))
            }
        case NGHTTP2_SETTINGS.byte:
            guard header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0, let session else { break }
            let limit = Int(min(session.remoteSetting(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS), UInt32(Int32.max)))
            shared.maxConcurrentStreams.store(limit, ordering: .relaxed)
            if machine.settingsReceived(maxConcurrentStreams: limit), let continuation = connectContinuation {
                connectContinuation = nil
                publishCounts()
                continuation.resume()
            }
            scheduleFlush()  // a raised limit lets queued requests go
        case NGHTTP2_GOAWAY.byte:
            options.onGoAway?()
            // `perform` publishes first: no caller resumed by a failure finds this connection usable.
            perform(machine.goAwayReceived(lastStreamID: HTTP2StreamID(frame.pointee.goaway.last_stream_id),
                                           errorCode: frame.pointee.goaway.error_code))
            publishCounts()
        case NGHTTP2_PING.byte:
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 { machine.pingAcknowledged() }
        default:
            break
        }
        return 0
    }

    override func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if frame.pointee.hd.type == NGHTTP2_HEADERS.byte { machine.headersSent(HTTP2StreamID(frame.pointee.hd.stream_id)) }
        return 0
    }

    override func onFrameNotSent(_ frame: UnsafePointer<nghttp2_frame>, libraryError: Int32) -> Int32 {
        if frame.pointee.hd.type == NGHTTP2_HEADERS.byte,
           let action = machine.streamClosed(HTTP2StreamID(frame.pointee.hd.stream_id), errorCode: HTTP2ErrorCode.noError) {
            perform(action)
        }
        return 0
    }

    override func onStreamClosed(streamID: Int32, errorCode: UInt32) -> Int32 {
        let action = machine.streamClosed(HTTP2StreamID(streamID), errorCode: errorCode)
        publishCounts()
        if let action { perform(action) }
        scheduleFlush()  // a free stream lets a queued request go
        return 0
    }

    override func readBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = machine.request(on: HTTP2StreamID(streamID)) else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let body = stream.request.body
        let count = min(buffer.count, body.count - stream.bodyOffset)
        if count > 0 {
            body.withUnsafeBufferPointer { source in
                _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
                    .initialize(from: UnsafeBufferPointer(rebasing: source[stream.bodyOffset..<(stream.bodyOffset + count)]))
            }
        }
        stream.bodyOffset += count
        if stream.bodyOffset >= body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    // MARK: timers

    override var nextDeadline: MonotonicTime? {
        let own = machine.nextDeadline
        guard let drain = super.nextDeadline else { return own }
        return own.map { min($0, drain) } ?? drain
    }

    override func tick(now: MonotonicTime) {
        super.tick(now: now)
        perform(machine.tick(now: now))
        publishCounts()
    }

    // MARK: closing

    /// Client-initiated close: say goodbye with GOAWAY, then fail what is outstanding.
    func closeByClient() {
        if state == .open, let session {
            _ = nghttp2_submit_goaway(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, NGHTTP2_NO_ERROR.rawValue, nil, 0)
        }
        fail(.connectionClosed("the connection was closed by the client"))
    }

    /// Resumes `waiter` once the channel has closed and let go of its socket.
    func whenClosed(_ waiter: CheckedContinuation<Void, Never>) {
        if state == .closed { waiter.resume() } else { closeWaiters.append(waiter) }
    }

    override func didClose(_ error: HTTP2Error) {
        if let continuation = connectContinuation {
            connectContinuation = nil
            var reported = error
            if case .connectionClosed(let message) = error {
                reported = stateBeforeClose == .handshaking
                    ? .tls("the server closed the connection during the TLS handshake: \(message)")
                    : .connectFailed(message)
            }
            continuation.resume(throwing: reported)
        }
        perform(machine.closed(error))
        publishCounts()
        blocksInUse.removeAll()
        for waiter in closeWaiters { waiter.resume() }
        closeWaiters.removeAll()
        if stopsLoopOnClose { loop.stop() }
    }
}
