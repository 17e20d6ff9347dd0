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
///
/// Each attempt holds a lease on its message, longer than the request timeout and renewed while
/// the request runs, so no other node sends it meanwhile; the outcome is written only under that
/// lease, so a holder that lost it (paused past it) changes nothing. A store that fails never
/// stops the loop: it tries again with backoff.
public actor FeedbackDispatcher: Service {
    public struct Configuration: Sendable {
        public var receivers: [(url: String, types: Set<FeedbackType>)]
        public var secret: String
        public var maximumAttempts: Int
        /// Messages waiting for an attempt, per receiver; parked messages do not count.
        public var outboxLimit: Int
        public var requestTimeout: TimeInterval
        public var initialBackoff: TimeInterval
        public var maximumBackoff: TimeInterval

        public init(receivers: [(url: String, types: Set<FeedbackType>)], secret: String, maximumAttempts: Int = 8,
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
    private let health: LoopHealth
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

    public init(store: any OutboxStore, configuration: Configuration, health: LoopHealth = LoopHealth(),
                logger: Logger = Logger(label: "herald.feedback")) {
        self.store = store
        self.health = health
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
        var failures = 0
        while !Task.isCancelled {
            let delay: Double
            do {
                try await dispatchDue()
                delay = try await store.nextOutboxAttempt().map { max(0.01, Double($0.wholeMilliseconds) / 1000) } ?? 3600
                failures = 0
                health.succeeded(.feedback)
            } catch {
                health.failed(.feedback)
                // The store failed: look again soon, not at the next event.
                failures += 1
                logger.error("feedback dispatch failed; retrying", metadata: ["error": "\(error)", "failures": "\(failures)"])
                delay = min(30, 0.5 * pow(2, Double(min(failures, 6)))) * Double.random(in: 0.5...1)
            }
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
    ///
    /// - Throws: the store's error; what was attempted before it keeps its outcome.
    public func dispatchDue() async throws {
        guard !configuration.receivers.isEmpty else { return }
        while true {
            var added = 0
            var full: Set<String> = []
            while true {
                let result = try await fanOut.run(on: store, now: Date())
                added += result.added
                full = Set(result.fullReceivers)
                if !result.advanced { break }
            }
            for url in full.subtracting(fullReceivers).sorted() {
                logger.warning("feedback receiver is behind: its new events wait until it catches up",
                               metadata: ["url": "\(url)", "limit": "\(configuration.outboxLimit)"])
            }
            fullReceivers = full
            let due = try await store.leaseOutboxMessages(limit: 50, lease: lease)
            if due.isEmpty && added == 0 { break }
            await withTaskGroup(of: Void.self) { group in
                for message in due {
                    group.addTask { await self.attempt(message) }
                }
            }
        }
    }

    private var fanOut: FeedbackFanOut {
        FeedbackFanOut(receivers: configuration.receivers, limit: configuration.outboxLimit, render: Self.render)
    }

    /// How long an attempt holds its message: longer than the request may take.
    private var lease: Duration { .milliseconds(Int64(configuration.requestTimeout * 1000)) * 2 + .seconds(5) }

    /// Renews `message`'s lease every third of it until cancelled.
    private func renewing(_ message: OutboxMessage, token: String) -> Task<Void, Never> {
        let (store, lease, logger) = (self.store, self.lease, self.logger)
        return Task {
            while (try? await Task.sleep(for: lease / 3)) != nil {
                if (try? await store.renewOutboxLease(message.id, token: token, lease: lease)) == false {
                    logger.warning("lost the lease on a feedback message mid-attempt",
                                   metadata: ["event": "\(message.eventID)", "url": "\(message.url)"])
                    return
                }
            }
        }
    }

    private func attempt(_ message: OutboxMessage) async {
        guard let token = message.leaseToken else { return }
        let renewal = renewing(message, token: token)
        defer { renewal.cancel() }
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
                deliveredAttempts.increment()
                await record(message) { try await $0.markOutboxDelivered(message.id, token: token) }
                return
            }
            failure = "HTTP \(status)"
        } catch {
            failure = error.localizedDescription
        }
        failedAttempts.increment()
        let exponent = Double(min(message.attempts, 20))
        let backoff = min(configuration.maximumBackoff, configuration.initialBackoff * pow(2, exponent)) * Double.random(in: 0.5...1)
        // The leased copy's count is the stored one: nobody else attempts it while the lease runs.
        let parked = message.attempts + 1 >= configuration.maximumAttempts
        await record(message) {
            try await $0.markOutboxFailed(message.id, token: token, error: failure, retryAfter: .milliseconds(Int64(backoff * 1000)),
                                          parked: parked)
        }
        if parked {
            logger.warning("feedback receiver keeps failing; message parked",
                           metadata: ["url": "\(message.url)", "event": "\(message.eventID)", "error": "\(failure)"])
        }
    }

    /// Stores an attempt's outcome under its lease, trying again while the store fails and the
    /// lease lasts: an outcome lost here would send the message again once the lease ran out.
    private func record(_ message: OutboxMessage, _ write: @Sendable (any OutboxStore) async throws -> Bool) async {
        do {
            if try await retryingStoreCall(until: .now + lease, { try await write(store) }) == false {
                logger.warning("a feedback outcome came after this node lost the message's lease; not stored",
                               metadata: ["event": "\(message.eventID)", "url": "\(message.url)"])
            }
        } catch {
            logger.error("could not store a feedback outcome; the message will be attempted again",
                         metadata: ["event": "\(message.eventID)", "error": "\(error)"])
        }
    }

    /// The JSON a receiver gets: `{"id", "type", "app", "createdAt", "data"}`.
    static let render: @Sendable (Int64, FeedbackEvent) -> String = { id, event in
        struct Body: Encodable {
            var id: Int64
            var type: FeedbackType
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
