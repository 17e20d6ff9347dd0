import Foundation
import HeraldCore
import HeraldStorage

/// The fan-out of new feedback events into the outbox, one message per receiver whose types
/// include the event. Each receiver reads the events at its own pace, from its own cursor, and
/// takes new ones only while it holds fewer than `limit` messages waiting for an attempt:
/// parked messages do not count, and a receiver that is down or full holds back only itself.
///
/// ```swift
/// let fanOut = FeedbackFanOut(receivers: [(url: "https://example.com/hook", types: [.tokenInvalid])], limit: 10_000,
///                             render: FeedbackDispatcher.render)
/// let outcome = try await fanOut.run(on: store, now: Date())   // outcome.added messages are in the outbox
/// ```
public struct FeedbackFanOut: Sendable {
    /// What one fan-out did.
    public struct Outcome: Sendable, Equatable {
        /// Messages added to the outbox.
        public var added = 0
        /// Some receiver's cursor moved: there may be more events to read at once.
        public var advanced = false
        /// Receivers holding as many waiting messages as the outbox allows each one.
        public var fullReceivers: [String] = []
    }

    let receivers: [(url: String, types: Set<FeedbackType>)]
    let limit: Int
    let render: @Sendable (Int64, FeedbackEvent) -> String

    /// - Parameters:
    ///   - limit: messages waiting for an attempt, per receiver.
    ///   - render: the body a receiver gets for an event, given the event's key.
    public init(receivers: [(url: String, types: Set<FeedbackType>)], limit: Int,
                render: @escaping @Sendable (Int64, FeedbackEvent) -> String) {
        self.receivers = receivers
        self.limit = limit
        self.render = render
    }

    /// Moves new events into the outbox, every receiver in one transaction.
    ///
    /// - Throws: the store's error; nothing was written then.
    public func run(on store: any OutboxStore, now: Date) async throws -> Outcome {
        let types = Dictionary(receivers.map { ($0.url, $0.types) }, uniquingKeysWith: { $0.union($1) })
        let (limit, render) = (self.limit, self.render)
        let written = try await store.fanOutFeedback(to: receivers.map(\.url), now: now, room: { waiting in limit - waiting },
                                                     decide: { backlog in
            Self.plan(backlog, types: types[backlog.url] ?? [], render: render)
        })
        var outcome = Outcome()
        for (backlog, plan) in written {
            let added = plan?.messages.count ?? 0
            outcome.added += added
            outcome.advanced = outcome.advanced || (plan?.cursor ?? backlog.cursor) > backlog.cursor
            if backlog.waiting + added >= limit { outcome.fullReceivers.append(backlog.url) }
        }
        return outcome
    }

    /// The messages for one receiver's next events, and its cursor past every event it read.
    static func plan(_ backlog: FeedbackReceiverBacklog, types: Set<FeedbackType>,
                     render: (Int64, FeedbackEvent) -> String) -> FeedbackReceiverPlan {
        let messages = backlog.events.compactMap { stored -> FeedbackReceiverPlan.Message? in
            // A type this version does not know is no receiver's.
            guard let event = stored.event, types.contains(event.type) else { return nil }
            return FeedbackReceiverPlan.Message(eventKey: stored.key, type: event.type, body: render(stored.key, event))
        }
        return FeedbackReceiverPlan(messages: messages, cursor: backlog.events.last?.key ?? backlog.cursor)
    }
}
