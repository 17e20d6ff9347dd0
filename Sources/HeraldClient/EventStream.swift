import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One event of a device's live event stream.
public enum HeraldEvent: Sendable, Hashable {
    /// The stream is connected (again): the server woke the device, and what waited for it
    /// follows. Yielded on every (re)connection.
    case connected
    /// A system notification: coalesced from the backlog (on connecting), or live (count 1).
    /// Live events reported together carry their hand-over id on the last of the batch.
    case system(CoalescedEvent, id: Int64?)
    /// A local notification that fired (from the inbox on connecting, or live), with its hand-over id.
    case notification(InboxItem, id: Int64?)
    /// The backlog's hand-over: its id acknowledges the system notifications above it.
    case handedOver(backlogSeq: Int64)
    /// A frame this client does not know, from a newer server: its event name, data and id.
    case other(name: String, data: String, id: Int64?)

    /// The hand-over id the event carries, if any: what `Last-Event-ID` acknowledges.
    public var id: Int64? {
        switch self {
        case .connected: return nil
        case .system(_, let id), .notification(_, let id), .other(_, _, let id): return id
        case .handedOver(let sequence): return sequence
        }
    }
}

/// A device's live event stream (`GET .../events/stream`, Server-Sent Events) as an
/// `AsyncSequence` of ``HeraldEvent``s.
///
/// Connecting wakes the device: the coalesced backlog and the inbox come first, then live
/// system events and fired notifications. The sequence outlives connections: after a drop (a
/// connection error, the server going away or ending the stream), it reconnects with the
/// client's backoff (or the server's `retry:` hint), sending as `Last-Event-ID` the id of the
/// last event returned by `next()`, which acknowledges everything up to it. It never returns an
/// event whose id is at or below one already returned, so nothing is handed to the caller twice.
///
/// The sequence ends (returns nil) without throwing when its task is cancelled or the caller
/// stops iterating; the request is cancelled then. A refusal (such as 404 `deviceNotFound`)
/// ends it by throwing ``HeraldError``; 429 and 5xx answers are retried.
///
/// ```swift
/// for try await event in client.events(app: "com.example.alarm", device: "phone-1", foreground: true) {
///     switch event {
///     case .notification(let item, _): show(item)
///     case .system(let change, _): apply(change)
///     default: break
///     }
/// }
/// ```
public struct HeraldEventStream: AsyncSequence, Sendable {
    public typealias Element = HeraldEvent

    let client: HeraldClient
    let app: String
    let device: String
    let foreground: Bool
    let idleTimeout: Duration

    /// An iterator that connects when first asked for an event.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: self, lastReturned: client.lastHandOver(app: app, device: device))
    }

    /// The URL request of one connection, acknowledging `lastEventID`.
    func request(lastEventID: Int64?) throws(HeraldError) -> URLRequest {
        var request = try client.transport.urlRequest(.init(
            method: "GET", path: HeraldClient.devicePath(app, device) + "/events/stream",
            query: foreground ? [URLQueryItem(name: "foreground", value: "true")] : []))
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        if let lastEventID { request.setValue(String(lastEventID), forHTTPHeaderField: "Last-Event-ID") }
        let seconds = Double(idleTimeout.components.seconds) + Double(idleTimeout.components.attoseconds) / 1e18
        request.timeoutInterval = Swift.max(1, seconds)
        return request
    }

    /// Reads the events, reconnecting as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: HeraldEventStream
        /// The id of the last event returned: sent as `Last-Event-ID`, and the floor below
        /// which nothing is returned again.
        var lastReturned: Int64?
        var connection: AsyncThrowingStream<SSEItem, any Error>.AsyncIterator?
        /// Connections in a row that failed or ended without delivering anything.
        var failures = 0
        /// The wait before the next connection.
        var delay: Duration?
        /// The server's `retry:` hint for the next reconnection.
        var retryHint: Duration?
        var finished = false

        init(stream: HeraldEventStream, lastReturned: Int64?) {
            self.stream = stream
            self.lastReturned = lastReturned
        }

        /// The next event, connecting or reconnecting as needed.
        ///
        /// - returns: The event, or nil once the task is cancelled.
        /// - throws: ``HeraldError`` when the server refuses the stream (a 4xx other than 429),
        ///   or sends a frame that does not decode.
        public mutating func next() async throws -> HeraldEvent? {
            while !finished {
                if Task.isCancelled { return end() }
                if connection == nil {
                    if let wait = delay {
                        delay = nil
                        do { try await Task.sleep(for: wait) } catch { return end() }
                    }
                    connection = openEventStream(try stream.request(lastEventID: lastReturned),
                                                 session: stream.client.session).makeAsyncIterator()
                }
                let item: SSEItem?
                do {
                    item = try await connection!.next()
                } catch let refusal as SSERefusal {
                    connection = nil
                    guard refusal.isTransient else {
                        finished = true
                        throw refusal.error
                    }
                    scheduleReconnect(serverAsked: refusal.retryAfter)
                    continue
                } catch {
                    connection = nil
                    if Task.isCancelled { return end() }
                    scheduleReconnect(serverAsked: nil)
                    continue
                }
                guard let item else {
                    // The server ended the stream, or this task was cancelled.
                    connection = nil
                    if Task.isCancelled { return end() }
                    scheduleReconnect(serverAsked: nil)
                    continue
                }
                switch item {
                case .opened:
                    // A connection the server accepted: the next drop starts the backoff afresh.
                    failures = 0
                    return .connected
                case .frame(let frame):
                    if let retry = frame.retry { retryHint = .milliseconds(Swift.max(0, retry)) }
                    guard let event = try Self.event(frame) else { continue }
                    if let id = event.id {
                        if let last = lastReturned, id <= last { continue }
                        lastReturned = id
                        stream.client.remember(id, app: stream.app, device: stream.device)
                    }
                    return event
                }
            }
            return nil
        }

        /// Closes the connection; the sequence is over.
        private mutating func end() -> HeraldEvent? {
            connection = nil
            finished = true
            return nil
        }

        private mutating func scheduleReconnect(serverAsked: Duration?) {
            failures += 1
            delay = serverAsked ?? retryHint ?? stream.client.retry.backoff(afterFailures: failures)
            retryHint = nil
        }

        /// The event a frame stands for; nil for comments and `retry:` hints.
        static func event(_ frame: SSEFrame) throws(HeraldError) -> HeraldEvent? {
            guard let name = frame.event else { return nil }
            let id = frame.id.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            let data = Data((frame.data ?? "").utf8)
            switch name {
            case "system":
                return .system(try Transport.decode(CoalescedEvent.self, from: data), id: id)
            case "notification":
                return .notification(try Transport.decode(InboxItem.self, from: data), id: id)
            case "handedOver":
                struct Body: Decodable { var backlogSeq: Int64 }
                guard let sequence = (try? Transport.decode(Body.self, from: data))?.backlogSeq ?? id else {
                    throw .decoding(type: "handedOver", description: "no backlogSeq in \(frame.data ?? "")")
                }
                return .handedOver(backlogSeq: sequence)
            default:
                return .other(name: name, data: frame.data ?? "", id: id)
            }
        }
    }
}

extension HeraldClient {
    /// A device's live event stream: the backlog and inbox on connecting, then live system
    /// events and fired notifications, reconnecting after drops (see ``HeraldEventStream``).
    ///
    /// Connecting wakes the device (to `active` with `foreground`, else `background`); when the
    /// last stream of a device closes, the device is suspended. The first connection
    /// acknowledges what this client last returned for the device (``lastHandOver(app:device:)``).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter foreground: Whether the device becomes `active` rather than `background`.
    /// - parameter idleTimeout: How long a connection may stay silent (the server sends a
    ///   heartbeat every 15 s by default) before it is dropped and made again.
    /// - returns: The stream; iterating it throws ``HeraldError`` when the server refuses it.
    ///
    /// ```swift
    /// let events = client.events(app: "com.example.alarm", device: "phone-1")
    /// for try await event in events {
    ///     if case .notification(let item, _) = event { print(item.alert?.body ?? "") }
    /// }
    /// ```
    public func events(app: String, device: String, foreground: Bool = false,
                       idleTimeout: Duration = .seconds(90)) -> HeraldEventStream {
        HeraldEventStream(client: self, app: app, device: device, foreground: foreground, idleTimeout: idleTimeout)
    }
}
