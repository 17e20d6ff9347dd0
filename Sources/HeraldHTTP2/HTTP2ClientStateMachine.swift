/// The rules of one client connection, apart from sockets, TLS and nghttp2: which requests get a
/// stream (the peer's MAX_CONCURRENT_STREAMS), what GOAWAY means for each request, when a request
/// has run out of time, when to PING, and how each request ends when the connection closes.
///
/// It reads no clock and performs no I/O: the channel feeds it events with the time and carries
/// out the actions it returns, so every rule is tested without a socket
/// (`HTTP2ClientStateMachineTests`). Each request ends exactly once: with `responseEnded`, or
/// with one `.fail` action.
///
/// Whether a failed request may be sent again is in the error: `.notProcessed` means the server
/// never saw it (queued, refused, above GOAWAY's last-stream-id, HEADERS never written).
struct HTTP2ClientStateMachine<Request: AnyObject> {
    struct Configuration {
        var maxQueuedRequests: Int
        var pingInterval: Duration?
        var pingTimeout: Duration
        var connectTimeout: Duration
    }

    enum Phase {
        case connecting
        /// `goingAway`: GOAWAY received; streams at or below its last-stream-id still get answers.
        case open, goingAway, closed
    }

    enum Action {
        case fail(Request, HTTP2Error)
        /// Give up on a stream the peer may still answer: RST_STREAM(CANCEL).
        case reset(HTTP2StreamID)
        case sendPing
        case close(HTTP2Error)
    }

    private struct Waiting {
        let request: Request
        let deadline: MonotonicTime
    }

    private struct Open {
        let request: Request
        let deadline: MonotonicTime
        var headersSent = false
    }

    let configuration: Configuration
    private(set) var phase: Phase = .connecting
    private let connectDeadline: MonotonicTime
    /// The lowest last-stream-id of the GOAWAYs received: nothing above it was processed.
    private(set) var lastStreamIDPromised: HTTP2StreamID?
    private var closeError: HTTP2Error?
    /// FIFO of requests waiting for a stream; cancelled ones become nil and are skipped.
    private var queue: [Waiting?] = []
    private var queueHead = 0
    private(set) var queuedRequests = 0
    private var open: [HTTP2StreamID: Open] = [:]
    /// Until the peer's SETTINGS say otherwise, one stream (what APNs allows at first).
    private var peerStreamLimit = 1
    /// No request has a deadline before this; nil when none is waiting or open.
    private var earliestDeadline: MonotonicTime?
    private var lastReadAt: MonotonicTime
    private var pingSentAt: MonotonicTime?

    init(configuration: Configuration, now: MonotonicTime) {
        self.configuration = configuration
        connectDeadline = now + configuration.connectTimeout
        lastReadAt = now
    }

    var openStreams: Int { open.count }

    /// The request carried by an open stream.
    func request(on id: HTTP2StreamID) -> Request? {
        open[id]?.request
    }

    /// True while new requests are accepted.
    var isUsable: Bool { phase == .open }

    // MARK: connection events

    /// The peer's SETTINGS arrived. Returns true for the first, which completes connecting.
    mutating func settingsReceived(maxConcurrentStreams: Int) -> Bool {
        peerStreamLimit = maxConcurrentStreams
        guard phase == .connecting else { return false }
        phase = .open
        return true
    }

    /// Anything from the peer shows it is alive, which postpones the next PING.
    mutating func received(now: MonotonicTime) {
        lastReadAt = now
    }

    mutating func pingAcknowledged() {
        pingSentAt = nil
    }

    /// GOAWAY: queued requests will never be sent here, and open streams above the last one the
    /// server promised to process were not processed. Both may be sent again elsewhere.
    mutating func goAwayReceived(lastStreamID: HTTP2StreamID, errorCode: UInt32) -> [Action] {
        guard phase != .closed else { return [] }
        phase = .goingAway
        let lastStreamID = min(lastStreamID, lastStreamIDPromised ?? lastStreamID)
        lastStreamIDPromised = lastStreamID
        let reason = "the server sent GOAWAY (\(HTTP2Error.errorCodeName(errorCode))) before the request was sent"
        var actions = drainQueue(failingWith: .notProcessed(reason))
        for (id, stream) in open where id > lastStreamID {
            open[id] = nil
            actions.append(.fail(stream.request, .notProcessed(
                "the server sent GOAWAY with last-stream-id \(lastStreamID), below this stream (\(id))")))
        }
        return actions
    }

    /// The connection is gone: every request still waiting or open ends, each with what is
    /// known about whether the server processed it.
    mutating func closed(_ error: HTTP2Error) -> [Action] {
        guard phase != .closed else { return [] }
        let goAway = lastStreamIDPromised
        var actions = drainQueue(failingWith: .notProcessed("the connection closed before the request was sent (\(error))"))
        let streams = open
        open = [:]
        earliestDeadline = nil
        for entry in streams {
            let failure = Self.failure(of: entry.key, headersSent: entry.value.headersSent, closedBy: error,
                                       lastStreamIDPromised: goAway)
            actions.append(.fail(entry.value.request, failure))
        }
        phase = .closed
        closeError = error
        return actions
    }

    // MARK: requests

    /// Queues a request for a stream. Returns the error that refuses it, or nil when queued.
    mutating func enqueue(_ request: Request, deadline: MonotonicTime) -> HTTP2Error? {
        switch phase {
        case .closed:
            return .notProcessed("the connection is closed (\(closeError.map { "\($0)" } ?? "")); the request was not sent")
        case .goingAway:
            return .notProcessed("the server sent GOAWAY; the request was not sent")
        case .connecting, .open:
            break
        }
        // Requests that get a free stream at the next admission are not "waiting".
        let freeSlots = max(0, peerStreamLimit - open.count)
        if queuedRequests >= configuration.maxQueuedRequests + freeSlots {
            return .queueFull(limit: configuration.maxQueuedRequests)
        }
        queue.append(Waiting(request: request, deadline: deadline))
        queuedRequests += 1
        if earliestDeadline.map({ deadline < $0 }) ?? true { earliestDeadline = deadline }
        return nil
    }

    /// Opens streams for waiting requests, oldest first, while the peer allows more.
    ///
    /// - Parameter openStream: submits one request and returns its stream id, or why it could not.
    mutating func admit(_ openStream: (Request) -> Result<HTTP2StreamID, HTTP2Error>) -> [Action] {
        guard phase == .open else { return [] }
        var actions: [Action] = []
        while open.count < peerStreamLimit, queueHead < queue.count {
            let next = queue[queueHead]
            queue[queueHead] = nil
            queueHead += 1
            guard let waiting = next else { continue }
            queuedRequests -= 1
            switch openStream(waiting.request) {
            case .success(let id):
                open[id] = Open(request: waiting.request, deadline: waiting.deadline)
            case .failure(let error):
                actions.append(.fail(waiting.request, error))
            }
        }
        compactQueue()
        return actions
    }

    /// The request's HEADERS are on their way to the peer: from now on it may be processed.
    mutating func headersSent(_ id: HTTP2StreamID) {
        open[id]?.headersSent = true
    }

    /// The final response is complete. Returns its request, which has succeeded.
    mutating func responseEnded(_ id: HTTP2StreamID) -> Request? {
        open.removeValue(forKey: id)?.request
    }

    /// The stream closed without a complete response (if it had one, `responseEnded` came first).
    mutating func streamClosed(_ id: HTTP2StreamID, errorCode: UInt32) -> Action? {
        guard let stream = open.removeValue(forKey: id) else { return nil }
        let failure: HTTP2Error
        if errorCode == HTTP2ErrorCode.refusedStream {
            failure = .notProcessed("the server refused the stream (REFUSED_STREAM)")
        } else if let last = lastStreamIDPromised, id > last {
            failure = .notProcessed("the server sent GOAWAY with last-stream-id \(last), below this stream (\(id))")
        } else if !stream.headersSent {
            failure = .notProcessed("the stream closed before the request was sent")
        } else if errorCode != 0 {
            failure = .streamReset(errorCode)
        } else {
            failure = .protocolError("the stream closed without a complete response")
        }
        return .fail(stream.request, failure)
    }

    /// The caller gave up on `request`: it ends as cancelled, and its stream, if it has one, is reset.
    mutating func cancel(_ request: Request) -> [Action] {
        if let index = queue[queueHead...].firstIndex(where: { $0?.request === request }) {
            queue[index] = nil
            queuedRequests -= 1
            return [.fail(request, .cancelled)]
        }
        guard let (id, _) = open.first(where: { $0.value.request === request }) else { return [] }
        open[id] = nil
        return [.reset(id), .fail(request, .cancelled)]
    }

    // MARK: time

    /// When `tick` must run next: the connect deadline, a request's deadline, or a PING's.
    var nextDeadline: MonotonicTime? {
        var next: MonotonicTime?
        func consider(_ time: MonotonicTime?) {
            if let time, next.map({ time < $0 }) ?? true { next = time }
        }
        if phase == .connecting { consider(connectDeadline) }
        consider(earliestDeadline)
        if isAnswering, let interval = configuration.pingInterval {
            consider(pingSentAt.map { $0 + configuration.pingTimeout } ?? (lastReadAt + interval))
        }
        return next
    }

    mutating func tick(now: MonotonicTime) -> [Action] {
        if phase == .connecting, now >= connectDeadline {
            return [.close(.connectFailed("no HTTP/2 connection within \(configuration.connectTimeout)"))]
        }
        var actions: [Action] = []
        if let earliest = earliestDeadline, now >= earliest { expireRequests(now: now, into: &actions) }
        if isAnswering, let interval = configuration.pingInterval {
            if let sentAt = pingSentAt {
                if now >= sentAt + configuration.pingTimeout {
                    actions.append(.close(.connectionClosed(
                        "the server did not acknowledge a PING within \(configuration.pingTimeout)")))
                }
            } else if now >= lastReadAt + interval {
                pingSentAt = now
                actions.append(.sendPing)
            }
        }
        return actions
    }

    /// A request past its deadline ends: one never sent as not processed (it may go elsewhere),
    /// one sent as timed out (the server may have processed it) with its stream reset.
    private mutating func expireRequests(now: MonotonicTime, into actions: inout [Action]) {
        var next: MonotonicTime?
        func keep(_ deadline: MonotonicTime) {
            if next.map({ deadline < $0 }) ?? true { next = deadline }
        }
        for index in queue.indices[queueHead...] {
            guard let waiting = queue[index] else { continue }
            if waiting.deadline <= now {
                queue[index] = nil
                queuedRequests -= 1
                actions.append(.fail(waiting.request, .notProcessed("no stream became free before the deadline; the request was not sent")))
            } else {
                keep(waiting.deadline)
            }
        }
        for (id, stream) in open {
            guard stream.deadline <= now else {
                keep(stream.deadline)
                continue
            }
            open[id] = nil
            actions.append(.reset(id))
            actions.append(.fail(stream.request, stream.headersSent ? .timeout
                : .notProcessed("the deadline passed before the request was sent")))
        }
        earliestDeadline = next
        compactQueue()
    }

    // MARK: helpers

    /// How an open stream ends when its connection closes.
    private static func failure(of id: HTTP2StreamID, headersSent: Bool, closedBy error: HTTP2Error,
                                lastStreamIDPromised: HTTP2StreamID?) -> HTTP2Error {
        if let last = lastStreamIDPromised, id > last {
            return .notProcessed("the server sent GOAWAY with last-stream-id \(last)")
        }
        if !headersSent { return .notProcessed("the connection closed before the request was sent (\(error))") }
        if case .connectionClosed = error { return error }
        return .connectionClosed(error.description)
    }

    /// Open or going away: the peer is expected to answer, so silence is worth a PING.
    private var isAnswering: Bool { phase == .open || phase == .goingAway }

    private mutating func drainQueue(failingWith error: HTTP2Error) -> [Action] {
        var actions: [Action] = []
        for waiting in queue[queueHead...] {
            if let waiting { actions.append(.fail(waiting.request, error)) }
        }
        queue.removeAll()
        queueHead = 0
        queuedRequests = 0
        return actions
    }

    private mutating func compactQueue() {
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 1024, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }
}

/// HTTP/2 error codes the client logic tells apart (RFC 9113 §7).
enum HTTP2ErrorCode {
    static let noError: UInt32 = 0
    static let refusedStream: UInt32 = 0x7
    static let cancel: UInt32 = 0x8
}
