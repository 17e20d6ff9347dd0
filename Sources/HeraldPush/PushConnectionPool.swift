import HeraldHTTP2
import Synchronization

/// A few multiplexed HTTP/2 connections to one push endpoint (APNs, FCM, a Web Push service), opened on demand and replaced when
/// they die. A batch is spread over them by free streams (the server's MAX_CONCURRENT_STREAMS
/// less what each carries); a new connection opens only when every open one is full, up to `size`.
///
/// Two rules keep it from opening connections it does not need:
/// - a fresh connection's one-stream start (APNs allows one stream until the first answer) counts
///   as room, not as full, so a burst on a new pool waits for the limit to rise;
/// - a resend after GOAWAY or REFUSED_STREAM avoids the connection that did not process it.
final class PushConnectionPool: Sendable {
    private struct State {
        var connections: [HTTP2ClientConnection] = []
        var opening: Task<HTTP2ClientConnection, any Error>?
    }

    private let host: String
    private let port: Int
    private let tls: HTTP2ClientTLS
    private let loops: HTTP2EventLoops
    private let size: Int
    private let connectTimeout: Duration
    private let events: APNsConnectionEvents
    private let state = Mutex(State())

    init(host: String, port: Int, tls: HTTP2ClientTLS, loops: HTTP2EventLoops, size: Int,
         connectTimeout: Duration = .seconds(10), events: APNsConnectionEvents = APNsConnectionEvents()) {
        self.events = events
        self.host = host
        self.port = port
        self.tls = tls
        self.loops = loops
        self.size = max(1, size)
        self.connectTimeout = connectTimeout
    }

    /// Splits `count` requests over usable connections, opening one if all are full.
    ///
    /// - Parameters:
    ///   - avoiding: connections that just failed to process some of these requests; used only
    ///     when no other connection can be had.
    ///   - limit: how long a connection this call opens may take (the round's time left).
    /// - Returns: for each connection used, how many of the requests it takes, in order.
    /// - Throws: the connect error when there is no usable connection and none could be opened.
    func assign(_ count: Int, avoiding: Set<ObjectIdentifier> = [], limit: Duration) async throws -> [(HTTP2ClientConnection, Int)] {
        let opening: Task<HTTP2ClientConnection, any Error>? = state.withLock { state in
            state.connections.removeAll { !$0.isUsable }
            let candidates = state.connections.filter { !avoiding.contains(ObjectIdentifier($0)) }
            let room = candidates.reduce(0) { $0 + Self.room(on: $1) }
            guard room < count, state.connections.count < size else { return nil }
            if candidates.contains(where: Self.isStarting) { return nil }
            if let opening = state.opening { return opening }
            let (host, port, tls, timeout, loops, events) = (self.host, self.port, self.tls, min(connectTimeout, limit), self.loops,
                                                             self.events)
            let task = Task {
                do {
                    let connection = try await HTTP2ClientConnection.connect(
                        host: host, port: port, tls: tls, timeout: timeout,
                        options: HTTP2ClientOptions(onGoAway: events.receivedGoAway), loops: loops)
                    events.connected(true)
                    return connection
                } catch {
                    events.connected(false)
                    throw error
                }
            }
            state.opening = task
            return task
        }
        if let opening {
            do {
                let connection = try await opening.value
                state.withLock { state in
                    if state.opening == opening { state.opening = nil }
                    if !state.connections.contains(where: { $0 === connection }) { state.connections.append(connection) }
                }
            } catch {
                state.withLock { state in if state.opening == opening { state.opening = nil } }
                if state.withLock({ $0.connections.isEmpty }) { throw error }
            }
        }
        let connections = state.withLock { state in state.connections.filter(\.isUsable) }
        let preferred = connections.filter { !avoiding.contains(ObjectIdentifier($0)) }
        let chosen = preferred.isEmpty ? connections : preferred
        guard !chosen.isEmpty else { throw HTTP2Error.connectFailed("no usable connection to \(host):\(port)") }
        return Self.split(count, over: chosen)
    }

    /// Fills free streams first, most room first; what does not fit is queued evenly.
    static func split(_ count: Int, over connections: [HTTP2ClientConnection]) -> [(HTTP2ClientConnection, Int)] {
        var shares = connections.map { (connection: $0, room: room(on: $0), share: 0) }
        shares.sort { $0.room > $1.room }
        var left = count
        for index in shares.indices where left > 0 {
            let take = min(left, shares[index].room)
            shares[index].share += take
            left -= take
        }
        if left > 0 {
            let each = left / shares.count, extra = left % shares.count
            for index in shares.indices { shares[index].share += each + (index < extra ? 1 : 0) }
        }
        return shares.filter { $0.share > 0 }.map { ($0.connection, $0.share) }
    }

    /// Free streams on a connection; a fresh one in its one-stream start counts as roomy, since its
    /// limit rises with the first answer.
    private static func room(on connection: HTTP2ClientConnection) -> Int {
        let load = connection.openStreams + connection.queuedRequests
        let limit = isStarting(connection) ? startingRoom : connection.maxConcurrentStreams
        return max(0, limit - load)
    }

    private static func isStarting(_ connection: HTTP2ClientConnection) -> Bool {
        connection.maxConcurrentStreams <= 1 && connection.answeredRequests == 0
    }

    /// What a connection in its one-stream start is expected to take (APNs raises 1 to about 1,000).
    static let startingRoom = 500

    /// One request's answer in a round, and the connection that carried it.
    struct Answer: Sendable {
        var result: Result<HTTP2Response, HTTP2Error>
        var connection: ObjectIdentifier?
    }

    /// Sends `requests` once, split over the pool's connections, and waits for every answer (each
    /// bounded by `limit` on its loop): one continuation for the round, none per request. A
    /// cancelled caller cancels the round's streams.
    func send(_ requests: [HTTP2Request], avoiding: Set<ObjectIdentifier> = [], limit: Duration) async -> [Answer] {
        let shares: [(HTTP2ClientConnection, Int)]
        do {
            shares = try await assign(requests.count, avoiding: avoiding, limit: limit)
        } catch {
            let failure = error as? HTTP2Error ?? .connectFailed("\(error)")
            return requests.map { _ in Answer(result: .failure(failure)) }
        }
        let cancellation = HTTP2Cancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Answer], Never>) in
                let join = AnswerJoin(count: requests.count, continuation: continuation)
                var start = 0
                for (connection, count) in shares {
                    let range = start..<(start + count)
                    start += count
                    let id = ObjectIdentifier(connection)
                    cancellation.add(connection.send(Array(requests[range]), timeout: limit) { results in
                        join.deliver(results.map { Answer(result: $0, connection: id) }, at: range.lowerBound)
                    })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    var openConnections: Int { state.withLock { $0.connections.filter(\.isUsable).count } }

    /// Closes every connection and waits until each one's loop let go of it.
    func closeAll() async {
        let closing = state.withLock { state in
            defer { state.connections.removeAll() }
            return state.connections
        }
        for connection in closing { await connection.shutdown() }
    }
}

/// Gathers the answers of one attempt round from several connections' loops and resumes the
/// round's one continuation when the last arrives.
private final class AnswerJoin<Answer: Sendable>: Sendable {
    private let state: Mutex<(answers: [Answer?], missing: Int, continuation: CheckedContinuation<[Answer], Never>?)>

    init(count: Int, continuation: CheckedContinuation<[Answer], Never>) {
        state = Mutex((Array(repeating: nil, count: count), count, continuation))
    }

    func deliver(_ answers: [Answer], at offset: Int) {
        let finished = state.withLock { state -> ([Answer], CheckedContinuation<[Answer], Never>)? in
            for (index, answer) in answers.enumerated() { state.answers[offset + index] = answer }
            state.missing -= answers.count
            guard state.missing == 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (state.answers.map { $0! }, continuation)
        }
        if let (answers, continuation) = finished { continuation.resume(returning: answers) }
    }
}
