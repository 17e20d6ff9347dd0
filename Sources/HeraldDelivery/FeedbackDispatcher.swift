import Foundation
import HeraldCore
import HeraldCrypto
import HeraldStorage
import Logging
import Metrics
import ServiceLifecycle
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivers feedback events (`token.invalid`, `delivery.failed`, ...) to the configured receivers.
///
/// Events are stored when raised; this service moves them into a bounded, durable outbox, one
/// message per receiver, and POSTs each with a `Herald-Signature` header, retrying with capped
/// exponential backoff. A message that keeps failing is parked after `maximumAttempts` and shown
/// by the API. It sleeps until the next retry is due or a new event is raised: no polling.
public actor FeedbackDispatcher: Service {
    public struct Configuration: Sendable {
        public var receivers: [(url: String, types: Set<String>)]
        public var secret: String
        public var maximumAttempts: Int
        /// Messages waiting for an attempt, per receiver; parked messages do not count.
        public var outboxLimit: Int
        public var requestTimeout: TimeInterval
        public var initialBackoff: TimeInterval
        public var maximumBackoff: TimeInterval

        public init(receivers: [(url: String, types: Set<String>)], secret: String, maximumAttempts: Int = 8,
                    outboxLimit: Int = 10_000, requestTimeout: TimeInterval = 10, initialBackoff: TimeInterval = 1,
                    maximumBackoff: TimeInterval = 300) {
            self.receivers = receivers
            self.secret = secret
            self.maximumAttempts = maximumAttempts
            self.outboxLimit = outboxLimit
            self.requestTimeout = requestTimeout
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
        }
    }

    private let store: any OutboxStore
    private let configuration: Configuration
    private let logger: Logger
    /// `herald_feedback_delivery_attempts_total{result}`: each try to reach a receiver.
    private let deliveredAttempts = Counter(label: "herald_feedback_delivery_attempts_total", dimensions: [("result", "delivered")])
    private let failedAttempts = Counter(label: "herald_feedback_delivery_attempts_total", dimensions: [("result", "failed")])
    private let session: URLSession
    private var wake: AsyncStream<Void>.Continuation?
    private var wakeups: AsyncStream<Void>?
    /// Receivers whose share of the outbox was full at the last fan-out; reported by the API.
    public private(set) var fullReceivers: Set<String> = []

    /// Some receiver's share of the outbox was full at the last fan-out.
    public var isFull: Bool { !fullReceivers.isEmpty }

    public init(store: any OutboxStore, configuration: Configuration, logger: Logger = Logger(label: "herald.feedback")) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        session = URLSession(configuration: sessionConfiguration)
    }

    /// Wakes the dispatcher: a new event was raised or a message was put back in line.
    public nonisolated func nudge() {
        Task { await self.signal() }
    }

    private func signal() {
        wake?.yield()
    }

    public func run() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wake = continuation
        wakeups = stream
        store.observeFeedback { [weak self] in self?.nudge() }
        await cancelWhenGracefulShutdown {
            await self.loop(stream)
        }
    }

    private func loop(_ wakeups: AsyncStream<Void>) async {
        var iterator = wakeups.makeAsyncIterator()
        while !Task.isCancelled {
            await dispatchDue()
            let next = (try? await store.nextOutboxAttempt()) ?? nil
            let delay = next.map { max(0.01, $0.timeIntervalSinceNow) } ?? 3600
            // Whichever comes first: the next retry, or a nudge.
            let timer = Task { [weak self] in
                // A cancelled timer must not signal: that would wake the loop at once, forever.
                guard (try? await Task.sleep(for: .milliseconds(Int64(delay * 1000)))) != nil else { return }
                await self?.signal()
            }
            guard await iterator.next() != nil else { timer.cancel(); return }
            timer.cancel()
        }
    }

    /// One pass: fan new events out and attempt every due message, until neither makes
    /// progress (a delivered message frees room for events held back by a full receiver).
    public func dispatchDue() async {
        guard !configuration.receivers.isEmpty else { return }
        do {
            while true {
                var added = 0
                var full: Set<String> = []
                while true {
                    let result = try await store.fanOutFeedback(receivers: configuration.receivers,
                                                                limit: configuration.outboxLimit, now: Date(),
                                                                render: Self.render)
                    added += result.added
                    full = Set(result.fullReceivers)
                    if !result.advanced { break }
                }
                for url in full.subtracting(fullReceivers).sorted() {
                    logger.warning("feedback receiver is behind: its new events wait until it catches up",
                                   metadata: ["url": "\(url)", "limit": "\(configuration.outboxLimit)"])
                }
                fullReceivers = full
                let due = try await store.dueOutboxMessages(now: Date(), limit: 50)
                if due.isEmpty && added == 0 { break }
                await withTaskGroup(of: Void.self) { group in
                    for message in due {
                        group.addTask { await self.attempt(message) }
                    }
                }
            }
        } catch {
            logger.error("feedback dispatch failed", metadata: ["error": "\(error)"])
        }
    }

    private func attempt(_ message: OutboxMessage) async {
        let body = Array(message.body.utf8)
        var request = URLRequest(url: URL(string: message.url)!, timeoutInterval: configuration.requestTimeout)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(WebhookSignature.sign(secret: configuration.secret, timestamp: Int(Date().timeIntervalSince1970), body: body),
                         forHTTPHeaderField: WebhookSignature.headerName)
        request.setValue(message.type, forHTTPHeaderField: "Herald-Event")
        request.setValue(String(message.eventID), forHTTPHeaderField: "Herald-Event-Id")
        let failure: String
        do {
            let (_, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if (200..<300).contains(status) {
                try? await store.markOutboxDelivered(message.id)
                deliveredAttempts.increment()
                return
            }
            failure = "HTTP \(status)"
        } catch {
            failure = error.localizedDescription
        }
        failedAttempts.increment()
        let exponent = Double(min(message.attempts, 20))
        let backoff = min(configuration.maximumBackoff, configuration.initialBackoff * pow(2, exponent)) * Double.random(in: 0.5...1)
        try? await store.markOutboxFailed(message.id, error: failure, nextAttempt: Date().addingTimeInterval(backoff),
                                          maximumAttempts: configuration.maximumAttempts)
        if message.attempts + 1 >= configuration.maximumAttempts {
            logger.warning("feedback receiver keeps failing; message parked",
                           metadata: ["url": "\(message.url)", "event": "\(message.eventID)", "error": "\(failure)"])
        }
    }

    /// The JSON a receiver gets: `{"id", "type", "app", "createdAt", "data"}`.
    static let render: @Sendable (Int64, FeedbackEvent) -> String = { id, event in
        struct Body: Encodable {
            var id: Int64
            var type: String
            var app: String
            var createdAt: String
            var data: [String: JSONValue]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = Body(id: id, type: event.type, app: event.appID, createdAt: RFC3339.string(from: event.createdAt),
                        data: event.payload)
        return (try? encoder.encode(body)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
