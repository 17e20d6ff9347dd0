/// An iOS 18 broadcast channel, created on APNs and kept by the app's own name for it.
public struct BroadcastChannel: Codable, Sendable, Hashable {
    /// The app's name for it.
    public var name: String
    /// The id APNs assigned (base64); apps subscribe to it, and a start's `inputPushChannel` names it.
    public var apnsChannelId: String
    /// 0: APNs stores no broadcast for offline devices; 1: it keeps the most recent.
    public var messageStoragePolicy: Int
    /// With `refresh: true`: whether APNs still knows the channel.
    public var onApns: Bool?
    /// With `refresh: true`, for one channel APNs knows: the policy it holds.
    public var apnsMessageStoragePolicy: Int?

    /// Creates a `BroadcastChannel` from its fields.
    public init(name: String, apnsChannelId: String, messageStoragePolicy: Int = 0, onApns: Bool? = nil,
                apnsMessageStoragePolicy: Int? = nil) {
        self.name = name
        self.apnsChannelId = apnsChannelId
        self.messageStoragePolicy = messageStoragePolicy
        self.onApns = onApns
        self.apnsMessageStoragePolicy = apnsMessageStoragePolicy
    }
}
