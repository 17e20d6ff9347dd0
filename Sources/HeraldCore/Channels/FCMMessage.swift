import Foundation

/// An FCM HTTP v1 message to one registration token: the JSON body of
/// `POST /v1/projects/{project}/messages:send`.
///
/// An alert becomes `notification {title, body}` with `android.notification {sound, tag,
/// channel_id}`; background and voip pushes are data-only (normal and high priority). The collapse
/// id plays `apns-collapse-id`'s role as `collapse_key` and the notification's `tag`, so a resend
/// shows once.
public struct FCMMessage: Hashable, Sendable {
    public var token: String
    public var kind: ChannelPush.Kind
    /// The `message` object without its `token`, encoded once and shared by every token it goes to.
    public var messageWithoutToken: [UInt8]

    /// FCM's limit on a message's payload.
    public static let maximumPayloadBytes = 4096

    /// Builds and checks the message; `payloadTooLarge` when it is over FCM's limit.
    public init(token: String, push: ChannelPush, now: Date) throws(HeraldError) {
        struct AndroidNotification: Encodable {
            var sound: String?
            var tag: String?
            var channel_id: String?
        }
        struct Android: Encodable {
            var priority: String
            var ttl: String
            var collapse_key: String?
            var notification: AndroidNotification?
        }
        struct Notification: Encodable {
            var title: String?
            var body: String?
        }
        struct Message: Encodable {
            var notification: Notification?
            var android: Android
            var data: [String: String]?
        }
        var data = push.stringData
        if let id = push.id { data["herald_id"] = id }
        let isAlert = push.kind == .alert
        let message = Message(
            notification: isAlert ? Notification(title: push.title, body: push.body) : nil,
            android: Android(priority: push.isUrgent ? "high" : "normal", ttl: "\(push.timeToLive(now: now))s",
                             collapse_key: push.collapseID,
                             notification: isAlert ? AndroidNotification(sound: push.sound, tag: push.collapseID,
                                                                         channel_id: push.category) : nil),
            data: data.isEmpty ? nil : data)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(message) else {
            throw .invalid(.invalidPayload, "the message cannot be encoded as JSON")
        }
        guard bytes.count <= Self.maximumPayloadBytes else {
            throw .invalid(.payloadTooLarge, "the FCM message is \(bytes.count) bytes; FCM allows \(Self.maximumPayloadBytes)")
        }
        self.token = try DeviceRules.fcmToken(token)
        kind = push.kind
        messageWithoutToken = [UInt8](bytes)
    }

    /// The same message to another token.
    public func addressed(to token: String) throws(HeraldError) -> FCMMessage {
        var copy = self
        copy.token = try DeviceRules.fcmToken(token)
        return copy
    }

    /// The request body; `validateOnly` asks FCM to check the message without sending it.
    public func body(validateOnly: Bool = false) -> [UInt8] {
        var body = Array((validateOnly ? #"{"validate_only":true,"message":{"token":""# : #"{"message":{"token":""#).utf8)
        body += token.utf8
        body += #"""#.utf8
        if messageWithoutToken.count > 2 { body += #","#.utf8 }
        body += messageWithoutToken.dropFirst()
        body += "}".utf8
        return body
    }
}
