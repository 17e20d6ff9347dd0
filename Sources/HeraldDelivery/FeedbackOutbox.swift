import Foundation
import HeraldCore
import HeraldStorage

/// The feedback webhooks' outbox as an operator sees it: its messages by state, a parked one
/// queued again, and the receivers whose share is full.
public struct FeedbackOutbox: Sendable {
    private let store: any OutboxStore
    private let dispatcher: FeedbackDispatcher?

    /// - Parameter dispatcher: the node's sender, nudged when a message is queued again; nil
    ///   where nothing sends.
    public init(store: any OutboxStore, dispatcher: FeedbackDispatcher?) {
        self.store = store
        self.dispatcher = dispatcher
    }

    /// Messages in `state` (every state when nil), at most `limit`, by id.
    public func messages(state: OutboxMessage.State?, limit: Int) async throws -> [OutboxMessage] {
        try await store.outboxMessages(state: state, limit: limit)
    }

    /// Queues a parked message again and wakes the sender. Returns false when no parked message
    /// has that id.
    public func retry(_ id: Int64) async throws -> Bool {
        guard try await store.retryOutboxMessage(id, now: Date()) else { return false }
        dispatcher?.nudge()
        return true
    }

    /// The receivers whose share of the outbox is full, by URL.
    public var fullReceivers: [String] {
        get async { await dispatcher?.fullReceivers.sorted() ?? [] }
    }
}
