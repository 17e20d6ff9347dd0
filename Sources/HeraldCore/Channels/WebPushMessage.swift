import Foundation

/// A Web Push message to one subscription, before encryption: the JSON a service worker's `push`
/// event reads (`event.data.json()`), and the headers RFC 8030 defines.
///
/// ```json
/// {"title": "Stand-up", "body": "in 5 minutes", "data": {"room": "4"}, "id": "occ-1", "tag": "occ-1"}
/// ```
public struct WebPushMessage: Hashable, Sendable {
    public var subscription: WebPushSubscription
    public var kind: ChannelPush.Kind
    public var plaintext: [UInt8]
    /// `TTL`: seconds the push service keeps it for an offline browser.
    public var timeToLive: Int
    /// `Urgency`: very-low, low, normal or high.
    public var urgency: String
    /// Replaces an undelivered message with the same topic (the collapse id), before hashing.
    public var collapseID: String?

    /// What fits in one 4,096-byte aes128gcm record: 4,096 less the 86-byte header, the 16-byte
    /// tag and the 1-byte padding delimiter.
    public static let maximumPlaintextBytes = 3993

    /// Builds and checks the message; `payloadTooLarge` when it would not fit in one record.
    public init(subscription: WebPushSubscription, push: ChannelPush, now: Date) throws(HeraldError) {
        struct Payload: Encodable {
            var title: String?
            var body: String?
            var sound: String?
            var kind: String
            var data: [String: JSONValue]?
            var id: String?
            var tag: String?
        }
        let payload = Payload(title: push.title, body: push.body, sound: push.sound, kind: push.kind.rawValue,
                              data: push.data.isEmpty ? nil : push.data, id: push.id, tag: push.collapseID)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(payload) else {
            throw .invalid(.invalidPayload, "the message cannot be encoded as JSON")
        }
        guard bytes.count <= Self.maximumPlaintextBytes else {
            throw .invalid(.payloadTooLarge,
                           "the Web Push payload is \(bytes.count) bytes; one encrypted record holds \(Self.maximumPlaintextBytes)")
        }
        self.subscription = subscription
        kind = push.kind
        plaintext = [UInt8](bytes)
        timeToLive = push.timeToLive(now: now)
        switch push.kind {
        case .voip: urgency = "high"
        case .background: urgency = "low"
        case .alert: urgency = push.isUrgent ? "high" : "normal"
        }
        collapseID = push.collapseID
    }

    /// The same message to another subscription.
    public func addressed(to subscription: WebPushSubscription) -> WebPushMessage {
        var copy = self
        copy.subscription = subscription
        return copy
    }
}
