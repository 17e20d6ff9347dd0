import CNGHTTP2
import Synchronization

/// State the public connection object reads without hopping to the loop thread.
final class HTTP2ClientSharedState: Sendable {
    let maxConcurrentStreams = Atomic<Int>(0)
    let usable = Atomic<Bool>(false)
    let openStreams = Atomic<Int>(0)
    let queuedRequests = Atomic<Int>(0)
}

/// One request from `send` until its continuation is resumed. Lives on the loop thread.
final class HTTP2ClientStream {
    let token: UInt64
    let request: HTTP2Request
    let deadline: MonotonicTime
    var continuation: CheckedContinuation<HTTP2Response, any Error>?
    /// 0 while queued; nghttp2's stream id once submitted.
    var streamID: Int32 = 0
    /// True while waiting in the channel's queue (counted in `queuedCount`).
    var isQueued = false
    var headersSent = false
    var endStreamReceived = false
    var status = 0
    var headers: [HTTP2Header] = []
    var body: [UInt8] = []
    var bodyOffset = 0

    init(token: UInt64, request: HTTP2Request, deadline: MonotonicTime, continuation: CheckedContinuation<HTTP2Response, any Error>) {
        self.token = token
        self.request = request
        self.deadline = deadline
        self.continuation = continuation
    }

    var isFinished: Bool { continuation == nil }
}

/// The client half of HTTP/2: queues requests until a stream slot is free (the peer's
/// MAX_CONCURRENT_STREAMS), maps stream outcomes to `HTTP2Error`, enforces deadlines and
/// keeps the connection alive with PINGs. Confined to its event loop thread.
final class HTTP2ClientChannel: HTTP2Channel, @unchecked Sendable {
    let options: HTTP2ClientOptions
    let shared: HTTP2ClientSharedState
    private var connectContinuation: CheckedContinuation<Void, any Error>?
    private var connectDeadline: MonotonicTime?
    private var connectTimeout: Duration = .zero

    /// FIFO of waiting requests; finished ones are skipped lazily when popped.
    private var queue: [HTTP2ClientStream] = []
    private var queueHead = 0
    private var queuedCount = 0
    private var active: [Int32: HTTP2ClientStream] = [:]
    private var byToken: [UInt64: HTTP2ClientStream] = [:]
    private var earliestDeadline: MonotonicTime?
    private var goAwayLastStreamID: Int32?
    private var goAwayErrorCode: UInt32 = 0
    private var pingSentAt: MonotonicTime?
    private var closeError: HTTP2Error?

    init(loop: EventLoop, tlsContext: TLSContext, options: HTTP2ClientOptions, shared: HTTP2ClientSharedState) {
        self.options = options
        self.shared = shared
        super.init(loop: loop, tlsContext: tlsContext)
    }

    func start(host: String, port: Int, serverName: String?, timeout: Duration,
               continuation: CheckedContinuation<Void, any Error>) {
        connectContinuation = continuation
        connectTimeout = timeout
        connectDeadline = MonotonicTime.now() + timeout
        startConnecting(host: host, port: port, serverName: serverName)
    }

    // MARK: requests

    func enqueue(_ stream: HTTP2ClientStream) {
        if let closeError {
            resume(stream, .failure(HTTP2Error.notProcessed("the connection is closed (\(closeError)); the request was not sent")))
            return
        }
        if goAwayLastStreamID != nil {
            resume(stream, .failure(HTTP2Error.notProcessed("the server sent GOAWAY; the request was not sent")))
            return
        }
        // Requests that will get a free stream at the next flush are not "waiting".
        let freeSlots = max(0, peerStreamLimit - active.count)
        if queuedCount >= options.maxQueuedRequests + freeSlots {
            resume(stream, .failure(HTTP2Error.queueFull(limit: options.maxQueuedRequests)))
            return
        }
        queue.append(stream)
        stream.isQueued = true
        queuedCount += 1
        byToken[stream.token] = stream
        if earliestDeadline.map({ stream.deadline < $0 }) ?? true { earliestDeadline = stream.deadline }
        publishCounts()
        scheduleFlush()
    }

    func cancel(token: UInt64) {
        guard let stream = byToken[token], !stream.isFinished else { return }
        abandon(stream, with: CancellationError())
    }

    /// Gives up on a request locally: resets its stream if it has one.
    private func abandon(_ stream: HTTP2ClientStream, with error: any Error) {
        if stream.streamID > 0, let session, state == .open {
            _ = nghttp2_submit_rst_stream(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.streamID,
                                          NGHTTP2_CANCEL.rawValue)
            scheduleFlush()
        }
        resume(stream, .failure(error))
    }

    private var peerStreamLimit: Int {
        guard let session else { return 0 }
        return Int(min(session.remoteSetting(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS), UInt32(Int32.max)))
    }

    /// Opens streams for queued requests while the peer allows more.
    private func submitPending() {
        guard state == .open, connectContinuation == nil, goAwayLastStreamID == nil, queuedCount > 0 else { return }
        let limit = peerStreamLimit
        while active.count < limit, queueHead < queue.count {
            let stream = queue[queueHead]
            queueHead += 1
            if stream.isFinished { continue }
            stream.isQueued = false
            queuedCount -= 1
            submit(stream)
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 1024, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        publishCounts()
    }

    private func submit(_ stream: HTTP2ClientStream) {
        guard let session else { return }
        let request = stream.request
        var headers: [HTTP2Header] = [(":method", request.method), (":scheme", request.scheme),
                                      (":authority", request.authority), (":path", request.path)]
        headers.reserveCapacity(4 + request.headers.count)
        for header in request.headers {
            let needsLowercase = header.name.utf8.contains { $0 >= 65 && $0 <= 90 }
            headers.append((needsLowercase ? header.name.lowercased() : header.name, header.value))
        }
        let streamID: Int32 = NGHTTP2Session.withHeaderBlock(headers) { nva, count in
            if request.body.isEmpty {
                return nghttp2_submit_request(session.pointer, nil, nva, count, nil, nil)
            }
            var provider = NGHTTP2Session.bodyProvider()
            return nghttp2_submit_request(session.pointer, nil, nva, count, &provider, nil)
        }
        if streamID < 0 {
            if streamID == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue { shared.usable.store(false, ordering: .relaxed) }
            resume(stream, .failure(HTTP2Error.notProcessed("could not open a stream: \(NGHTTP2Session.describe(streamID))")))
            return
        }
        stream.streamID = streamID
        active[streamID] = stream
        scheduleFlush()
    }

    private func resume(_ stream: HTTP2ClientStream, _ result: Result<HTTP2Response, any Error>) {
        guard let continuation = stream.continuation else { return }
        stream.continuation = nil
        byToken[stream.token] = nil
        if stream.streamID > 0, active[stream.streamID] === stream { active[stream.streamID] = nil }
        if stream.isQueued {
            stream.isQueued = false
            queuedCount -= 1
        }
        publishCounts()
        continuation.resume(with: result)
    }

    private func publishCounts() {
        shared.openStreams.store(active.count, ordering: .relaxed)
        shared.queuedRequests.store(queuedCount, ordering: .relaxed)
    }

    // MARK: channel hooks

    override func flushNow() {
        submitPending()
        super.flushNow()
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
        if let stream = active[frame.pointee.hd.stream_id], stream.status >= 100, stream.status < 200 {
            stream.status = 0
            stream.headers.removeAll()
        }
        return 0
    }

    override func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard frame.pointee.hd.type == NGHTTP2_HEADERS.byte, let stream = active[frame.pointee.hd.stream_id] else { return 0 }
        if name.first == UInt8(ascii: ":") {
            if name.elementsEqual(":status".utf8) {
                stream.status = Int(String(decoding: value, as: UTF8.self)) ?? 0
            }
            return 0
        }
        stream.headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        return 0
    }

    override func onDataChunk(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 {
        active[streamID]?.body.append(contentsOf: data)
        return 0
    }

    override func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        switch header.type {
        case NGHTTP2_HEADERS.byte, NGHTTP2_DATA.byte:
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, let stream = active[header.stream_id] {
                stream.endStreamReceived = true
                if stream.status >= 200 {
                    resume(stream, .success(HTTP2Response(status: stream.status, headers: stream.headers, body: stream.body)))
                }
            }
        case NGHTTP2_SETTINGS.byte:
            guard header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 else { break }
            shared.maxConcurrentStreams.store(peerStreamLimit, ordering: .relaxed)
            if let continuation = connectContinuation {
                connectContinuation = nil
                connectDeadline = nil
                shared.usable.store(true, ordering: .relaxed)
                continuation.resume()
            }
            scheduleFlush()  // a raised limit lets queued requests go
        case NGHTTP2_GOAWAY.byte:
            let lastStreamID = frame.pointee.goaway.last_stream_id
            goAwayLastStreamID = min(lastStreamID, goAwayLastStreamID ?? .max)
            goAwayErrorCode = frame.pointee.goaway.error_code
            shared.usable.store(false, ordering: .relaxed)
            failQueued(.notProcessed("the server sent GOAWAY (\(HTTP2Error.errorCodeName(goAwayErrorCode))) before the request was sent"))
        case NGHTTP2_PING.byte:
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 { pingSentAt = nil }
        default:
            break
        }
        return 0
    }

    override func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if frame.pointee.hd.type == NGHTTP2_HEADERS.byte {
            active[frame.pointee.hd.stream_id]?.headersSent = true
        }
        return 0
    }

    override func onFrameNotSent(_ frame: UnsafePointer<nghttp2_frame>, libraryError: Int32) -> Int32 {
        if frame.pointee.hd.type == NGHTTP2_HEADERS.byte, let stream = active[frame.pointee.hd.stream_id] {
            resume(stream, .failure(HTTP2Error.notProcessed("the request could not be sent: \(NGHTTP2Session.describe(libraryError))")))
        }
        return 0
    }

    override func onStreamClosed(streamID: Int32, errorCode: UInt32) -> Int32 {
        guard let stream = active[streamID] else { return 0 }
        let error: HTTP2Error
        if stream.endStreamReceived, stream.status >= 200 {
            resume(stream, .success(HTTP2Response(status: stream.status, headers: stream.headers, body: stream.body)))
            return 0
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            error = .notProcessed("the server refused the stream (REFUSED_STREAM)")
        } else if let last = goAwayLastStreamID, streamID > last {
            error = .notProcessed("the server sent GOAWAY with last-stream-id \(last), below this stream (\(streamID))")
        } else if !stream.headersSent {
            error = .notProcessed("the stream closed before the request was sent")
        } else if errorCode != 0 {
            error = .streamReset(errorCode)
        } else {
            error = .protocolError("the stream closed without a complete response")
        }
        resume(stream, .failure(error))
        scheduleFlush()
        return 0
    }

    override func readBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = active[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
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
        var next = connectDeadline
        if let earliestDeadline { next = min(next ?? earliestDeadline, earliestDeadline) }
        if state == .open, connectContinuation == nil, let interval = options.pingInterval {
            let ping = pingSentAt.map { $0 + options.pingTimeout } ?? (lastReadAt + interval)
            next = min(next ?? ping, ping)
        }
        return next
    }

    override func tick(now: MonotonicTime) {
        if let connectDeadline, now >= connectDeadline {
            fail(.connectFailed("no HTTP/2 connection within \(connectTimeout)"))
            return
        }
        if let earliest = earliestDeadline, now >= earliest { expireRequests(now: now) }
        guard state == .open, connectContinuation == nil, let interval = options.pingInterval, let session else { return }
        if let sentAt = pingSentAt {
            if now >= sentAt + options.pingTimeout {
                fail(.connectionClosed("the server did not acknowledge a PING within \(options.pingTimeout)"))
            }
        } else if now >= lastReadAt + interval {
            pingSentAt = now
            _ = nghttp2_submit_ping(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
            scheduleFlush()
        }
    }

    private func expireRequests(now: MonotonicTime) {
        var next: MonotonicTime?
        var expired: [HTTP2ClientStream] = []
        for stream in byToken.values {
            if stream.deadline <= now {
                expired.append(stream)
            } else if next.map({ stream.deadline < $0 }) ?? true {
                next = stream.deadline
            }
        }
        earliestDeadline = next
        for stream in expired { abandon(stream, with: HTTP2Error.timeout) }
    }

    private func failQueued(_ error: HTTP2Error) {
        for stream in queue[queueHead...] where !stream.isFinished { resume(stream, .failure(error)) }
        queue.removeAll()
        queueHead = 0
    }

    // MARK: closing

    /// Client-initiated close: say goodbye with GOAWAY, then fail what is outstanding.
    func closeByClient() {
        if state == .open, let session {
            _ = nghttp2_submit_goaway(session.pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, NGHTTP2_NO_ERROR.rawValue, nil, 0)
        }
        fail(.connectionClosed("the connection was closed by the client"))
    }

    override func didClose(_ error: HTTP2Error) {
        closeError = error
        shared.usable.store(false, ordering: .relaxed)
        if let continuation = connectContinuation {
            connectContinuation = nil
            connectDeadline = nil
            var reported = error
            if case .connectionClosed(let message) = error {
                reported = stateBeforeClose == .handshaking
                    ? .tls("the server closed the connection during the TLS handshake: \(message)")
                    : .connectFailed(message)
            }
            continuation.resume(throwing: reported)
        }
        failQueued(.notProcessed("the connection closed before the request was sent (\(error))"))
        for stream in Array(active.values) where !stream.isFinished {
            if stream.endStreamReceived, stream.status >= 200 {
                resume(stream, .success(HTTP2Response(status: stream.status, headers: stream.headers, body: stream.body)))
            } else if let last = goAwayLastStreamID, stream.streamID > last {
                resume(stream, .failure(HTTP2Error.notProcessed("the server sent GOAWAY with last-stream-id \(last)")))
            } else if !stream.headersSent {
                resume(stream, .failure(HTTP2Error.notProcessed("the connection closed before the request was sent (\(error))")))
            } else if case .connectionClosed = error {
                resume(stream, .failure(error))
            } else {
                resume(stream, .failure(HTTP2Error.connectionClosed(error.description)))
            }
        }
        earliestDeadline = nil
        loop.stop()
    }
}
