import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real Server-Sent Events client over URLSession: it streams the response and splits it into
/// frames as they arrive. `close()` drops the connection, as a client that went away would.
/// Each test target reads `data` as JSON its own way (an extension on ``Frame``).
public final class EventStreamClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One SSE block: a comment line (`: heartbeat`), an `event:` with its `id:` and `data:`, or
    /// a `retry:` hint.
    public struct Frame: Sendable, Hashable, CustomStringConvertible {
        public var comment: String?
        public var id: String?
        public var event: String?
        public var data: String?
        /// The reconnection time the server asked for (`retry:`), in milliseconds.
        public var retry: String?
        /// When the client read it.
        public var receivedAt: ContinuousClock.Instant

        public var description: String {
            if let comment { return ": \(comment)" }
            return "\(id.map { "[\($0)] " } ?? "")\(event ?? "message") \(data ?? "")"
        }
    }

    private let lock = NSLock()
    private var buffer = ""
    private var received: [Frame] = []
    private var statusCode: Int?
    private var contentTypeHeader: String?
    private var ended = false
    private var session: URLSession?
    private var task: URLSessionDataTask?

    /// Connects to `url`; with `lastEventID`, as a client reconnecting after that id.
    public init(url: URL, lastEventID: Int? = nil) {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let lastEventID { request.setValue(String(lastEventID), forHTTPHeaderField: "Last-Event-ID") }
        let task = session.dataTask(with: request)
        lock.withLock {
            self.session = session
            self.task = task
        }
        task.resume()
    }

    public convenience init(url: String, lastEventID: Int? = nil) {
        self.init(url: URL(string: url)!, lastEventID: lastEventID)
    }

    /// Every frame received so far, in order.
    public var frames: [Frame] { lock.withLock { received } }
    /// Frames that are events (`system`, `notification`, `handedOver`), without comments.
    public var events: [Frame] { frames.filter { $0.event != nil } }
    public var heartbeats: [Frame] { frames.filter { $0.comment == "heartbeat" } }
    public var status: Int? { lock.withLock { statusCode } }
    public var contentType: String? { lock.withLock { contentTypeHeader } }
    public var hasEnded: Bool { lock.withLock { ended } }

    /// Waits (at most `timeout`) until `condition` holds for the frames received; returns whether it did.
    public func waitUntil(timeout: Duration = .seconds(5), _ condition: ([Frame]) -> Bool) async -> Bool {
        // A stream that ended receives nothing more: stop waiting then.
        _ = await pollUntil(timeout: timeout, interval: .milliseconds(10)) { condition(frames) || hasEnded }
        return condition(frames)
    }

    /// Waits until at least `count` event frames arrived; returns the events received.
    public func waitForEvents(_ count: Int, timeout: Duration = .seconds(5)) async -> [Frame] {
        _ = await waitUntil(timeout: timeout) { $0.filter { $0.event != nil }.count >= count }
        return events
    }

    /// Drops the connection.
    public func close() {
        let (session, task) = lock.withLock { (self.session, self.task) }
        task?.cancel()
        session?.invalidateAndCancel()
        lock.withLock {
            self.session = nil
            self.task = nil
            ended = true
        }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let contentType = http?.allHeaderFields.first { ($0.key as? String)?.lowercased() == "content-type" }?.value as? String
        lock.withLock {
            statusCode = http?.statusCode
            contentTypeHeader = contentType
        }
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = ContinuousClock.now
        lock.withLock {
            buffer += String(decoding: data, as: UTF8.self)
            while let end = buffer.range(of: "\n\n") {
                let block = buffer[..<end.lowerBound]
                buffer.removeSubrange(..<end.upperBound)
                var frame = Frame(receivedAt: now)
                for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
                    if line.hasPrefix(":") {
                        frame.comment = line.dropFirst().trimmingCharacters(in: .whitespaces)
                    } else if line.hasPrefix("id:") {
                        frame.id = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
                    } else if line.hasPrefix("event:") {
                        frame.event = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
                    } else if line.hasPrefix("retry:") {
                        frame.retry = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
                    } else if line.hasPrefix("data:") {
                        let data = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                        frame.data = frame.data.map { $0 + "\n" + data } ?? data
                    }
                }
                received.append(frame)
            }
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock { ended = true }
    }
}
