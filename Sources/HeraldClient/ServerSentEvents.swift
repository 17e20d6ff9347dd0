import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One Server-Sent Events block: an event (`id:`, `event:`, `data:`), a `retry:` hint, or
/// comment lines (`: heartbeat`).
struct SSEFrame: Sendable, Hashable {
    var id: String?
    var event: String?
    var data: String?
    /// The reconnection time the server asked for, in milliseconds.
    var retry: Int?
    var comments: [String] = []
}

/// Splits a byte stream into ``SSEFrame``s: lines end with LF (a CR before it is dropped), a
/// blank line ends a frame.
struct SSEParser {
    private var line: [UInt8] = []
    private var frame = SSEFrame()
    private var hasContent = false

    /// Reads one byte; returns the frame it completes, if any.
    mutating func feed(_ byte: UInt8) -> SSEFrame? {
        guard byte == UInt8(ascii: "\n") else {
            line.append(byte)
            return nil
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            guard hasContent else { return nil }
            defer { frame = SSEFrame(); hasContent = false }
            return frame
        }
        hasContent = true
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix(":") {
            frame.comments.append(Self.value(text.dropFirst()))
            return nil
        }
        let field = text.prefix { $0 != ":" }
        let value = Self.value(text.dropFirst(field.count + 1))
        switch field {
        case "id": frame.id = value
        case "event": frame.event = value
        case "data": frame.data = frame.data.map { $0 + "\n" + value } ?? value
        case "retry": frame.retry = Int(value)
        default: break
        }
        return nil
    }

    /// Reads bytes; returns the frames they complete.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [SSEFrame] {
        bytes.compactMap { feed($0) }
    }

    /// A field's value: one leading space dropped, as the SSE format says.
    private static func value(_ text: Substring) -> String {
        String(text.first == " " ? text.dropFirst() : text)
    }
}

/// What one event stream connection yields: that the server accepted it, then its frames.
enum SSEItem: Sendable {
    case opened
    case frame(SSEFrame)
}

/// The server refused the event stream: its error, and the `Retry-After` it asked for.
struct SSERefusal: Error, Sendable {
    var error: HeraldError
    var retryAfter: Duration?

    /// Whether trying again later may succeed: the node is stopping (503) or the caller is
    /// rate-limited (429). Any other refusal (404 `deviceNotFound`, 401, 403) is final.
    var isTransient: Bool { error.status == 503 || error.status == 429 || (error.status ?? 0) >= 500 }
}

/// Opens one event stream connection. The stream yields ``SSEItem/opened`` on a 2xx answer,
/// then the frames; it finishes when the server ends the response, and throws ``SSERefusal``
/// for a non-2xx answer or ``HeraldError/transport(url:description:)`` when the connection
/// fails. Dropping the stream (or cancelling the consuming task) cancels the request.
func openEventStream(_ request: URLRequest, session: URLSession) -> AsyncThrowingStream<SSEItem, any Error> {
    let (stream, continuation) = AsyncThrowingStream<SSEItem, any Error>.makeStream()
    #if canImport(FoundationNetworking)
    // swift-corelibs-foundation has no `URLSession.bytes(for:)`: a delegate session of the
    // same configuration hands the body over as it arrives.
    let delegate = SSEDelegate(continuation: continuation, url: request.url!)
    let streamSession = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: nil)
    let task = streamSession.dataTask(with: request)
    let handles = Locked<(URLSession, URLSessionDataTask)?>((streamSession, task))
    continuation.onTermination = { _ in
        guard let (session, task) = handles.withLock({ handles in defer { handles = nil }; return handles }) else { return }
        task.cancel()
        session.invalidateAndCancel()
    }
    task.resume()
    #else
    let task = Task {
        do {
            let (bytes, response) = try await session.bytes(for: request)
            let http = response as? HTTPURLResponse
            let status = http?.statusCode ?? 0
            guard (200..<300).contains(status) else {
                var body = Data()
                for try await byte in bytes { body.append(byte) }
                let retryAfter = Transport.headers(of: http)["retry-after"].flatMap(Transport.retryAfter)
                throw SSERefusal(error: HeraldError.refusal(status: status, body: body), retryAfter: retryAfter)
            }
            continuation.yield(.opened)
            var parser = SSEParser()
            for try await byte in bytes {
                if let frame = parser.feed(byte) { continuation.yield(.frame(frame)) }
            }
            continuation.finish()
        } catch let refusal as SSERefusal {
            continuation.finish(throwing: refusal)
        } catch {
            if Task.isCancelled || (error as? URLError)?.code == .cancelled || error is CancellationError {
                continuation.finish()
            } else {
                continuation.finish(throwing: HeraldError.transport(url: request.url!, description: Transport.describe(error)))
            }
        }
    }
    continuation.onTermination = { _ in task.cancel() }
    #endif
    return stream
}

#if canImport(FoundationNetworking)
/// Feeds one event stream response into its continuation as the body arrives.
///
/// `@unchecked Sendable`: URLSession calls it from its own queue; its only mutable state is in
/// a ``Locked``, and the continuation is thread-safe.
final class SSEDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var parser = SSEParser()
        var status = 0
        var retryAfter: Duration?
        var errorBody = Data()
    }

    private let state = Locked(State())
    private let continuation: AsyncThrowingStream<SSEItem, any Error>.Continuation
    private let url: URL

    init(continuation: AsyncThrowingStream<SSEItem, any Error>.Continuation, url: URL) {
        self.continuation = continuation
        self.url = url
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        state.withLock { state in
            state.status = status
            state.retryAfter = Transport.headers(of: http)["retry-after"].flatMap(Transport.retryAfter)
        }
        if (200..<300).contains(status) { continuation.yield(.opened) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let frames = state.withLock { state -> [SSEFrame] in
            guard (200..<300).contains(state.status) else {
                state.errorBody.append(data)
                return []
            }
            return state.parser.feed(data)
        }
        for frame in frames { continuation.yield(.frame(frame)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (status, retryAfter, body) = state.withLock { ($0.status, $0.retryAfter, $0.errorBody) }
        if let error {
            if (error as? URLError)?.code == .cancelled {
                continuation.finish()
            } else {
                continuation.finish(throwing: HeraldError.transport(url: url, description: Transport.describe(error)))
            }
        } else if (200..<300).contains(status) {
            continuation.finish()
        } else {
            continuation.finish(throwing: SSERefusal(error: HeraldError.refusal(status: status, body: body), retryAfter: retryAfter))
        }
        session.finishTasksAndInvalidate()
    }
}
#endif
