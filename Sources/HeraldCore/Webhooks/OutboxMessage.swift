import Foundation

/// One feedback event on its way to one receiver URL.
public struct OutboxMessage: Hashable, Sendable {
    public enum State: String, Sendable, CaseIterable {
        case pending, delivered, parked
    }

    public var id: Int64
    public var eventID: Int64
    public var url: String
    public var type: String
    /// The JSON body, exactly as it will be signed and sent.
    public var body: String
    public var attempts: Int
    public var nextAttemptAt: Date
    public var state: State
    public var lastError: String?
    /// The lease under which this copy was handed out for an attempt; nil in listings.
    public var leaseToken: String?

    public init(id: Int64, eventID: Int64, url: String, type: String, body: String, attempts: Int, nextAttemptAt: Date,
                state: State, lastError: String?) {
        self.id = id
        self.eventID = eventID
        self.url = url
        self.type = type
        self.body = body
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.state = state
        self.lastError = lastError
    }
}
