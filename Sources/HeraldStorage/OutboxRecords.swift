import Foundation
import HeraldCore

/// An inbound hook's idempotency record: a resend with the same key gets the first answer.
public enum IdempotencyRecord: Sendable, Equatable {
    /// The first request is still being handled.
    case inProgress
    /// The first request's response body.
    case completed(String)
}

/// One receiver's side of a fan-out, read with its cursor locked: how far it has read, how many
/// of its messages wait for an attempt, and the next events after its cursor.
public struct FeedbackReceiverBacklog: Sendable {
    public var url: String
    /// The key of the last feedback event the receiver has read.
    public var cursor: Int64
    /// Its messages waiting for an attempt (parked ones do not count).
    public var waiting: Int
    /// The next events after ``cursor``, by key; empty when none was asked for.
    public var events: [StoredFeedbackEvent]

    public init(url: String, cursor: Int64, waiting: Int, events: [StoredFeedbackEvent]) {
        self.url = url
        self.cursor = cursor
        self.waiting = waiting
        self.events = events
    }
}

/// A feedback event as stored: its key, and the event (nil when its type is one this version
/// does not know).
public struct StoredFeedbackEvent: Sendable {
    public var key: Int64
    public var event: FeedbackEvent?

    public init(key: Int64, event: FeedbackEvent?) {
        self.key = key
        self.event = event
    }

    /// An event from its stored columns.
    public init(key: Int64, type: String, appID: String, payload: String, createdAt: Int64) {
        self.key = key
        event = FeedbackType(rawValue: type).map { type in
            // A payload that does not decode is sent empty rather than held back for ever.
            FeedbackEvent(type: type, appID: appID, payload: (try? DeviceJSON.decode(payload)) ?? [:],
                          createdAt: Date(millisecondsSince1970: createdAt))
        }
    }
}

/// What a fan-out writes for one receiver: new outbox messages, and its cursor's new place.
public struct FeedbackReceiverPlan: Sendable {
    public struct Message: Sendable {
        public var eventKey: Int64
        public var type: FeedbackType
        /// The JSON body, exactly as it will be signed and sent.
        public var body: String

        public init(eventKey: Int64, type: FeedbackType, body: String) {
            self.eventKey = eventKey
            self.type = type
            self.body = body
        }
    }

    public var messages: [Message]
    public var cursor: Int64

    public init(messages: [Message], cursor: Int64) {
        self.messages = messages
        self.cursor = cursor
    }
}
