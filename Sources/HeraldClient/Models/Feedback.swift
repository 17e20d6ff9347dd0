import Foundation

/// One outbound feedback webhook message (invalid tokens, delivery results...) and where it is.
public struct OutboxMessage: Codable, Sendable, Hashable, Identifiable {
    /// The identifier.
    public var id: Int64
    /// The feedback event it carries.
    public var event: Int64
    /// The receiver's URL.
    public var url: String
    /// The event type, such as `token.invalid` or `notification.evicted`.
    public var type: String
    /// Where it is.
    public var state: OutboxState
    /// Delivery attempts so far.
    public var attempts: Int
    /// When it is tried next.
    public var nextAttemptAt: Date
    /// Why the last attempt failed.
    public var lastError: String?
}

/// Where an outbox message is.
public enum OutboxState: OpenEnum {
    /// Waiting for its next attempt.
    case pending
    /// The receiver took it.
    case delivered
    /// Given up on; ``HeraldClient/retryFeedbackMessage(_:)`` queues it again.
    case parked
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "pending": self = .pending
        case "delivered": self = .delivered
        case "parked": self = .parked
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .pending: return "pending"
        case .delivered: return "delivered"
        case .parked: return "parked"
        case .unknown(let value): return value
        }
    }
}

/// One page of the feedback outbox, and whether some receiver's share of it is full.
public struct FeedbackOutbox: Decodable, Sendable, Hashable {
    /// The items of this page.
    public var items: [OutboxMessage]
    /// The cursor of the next page; nil on the last.
    public var nextCursor: String?
    /// Some receiver's share of the outbox is full.
    public var full: Bool
    /// The receivers whose share is full; the others are unaffected.
    public var fullReceivers: [String]

    /// The messages as a ``Page``.
    public var page: Page<OutboxMessage> { Page(items: items, nextCursor: nextCursor) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decodeIfPresent([OutboxMessage].self, forKey: .items)
            ?? container.decodeIfPresent([OutboxMessage].self, forKey: .messages) ?? []
        nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
        full = try container.decodeIfPresent(Bool.self, forKey: .full) ?? false
        fullReceivers = try container.decodeIfPresent([String].self, forKey: .fullReceivers) ?? []
    }

    enum CodingKeys: String, CodingKey { case items, messages, nextCursor, full, fullReceivers }
}
