/// An iOS 18 broadcast channel: one push reaches every Live Activity subscribed to it.
///
/// APNs names a channel by a base64 id it assigns; the app names it (`match-42`) and Herald keeps
/// the mapping. Its scheduled broadcasts live on an audience of their own, which the scheduler
/// treats as an installation (the 128 limit, once per occurrence): its id is
/// ``audienceID(name:)``, which no client device id can take.
public struct BroadcastChannel: Codable, Hashable, Sendable {
    public var name: String
    /// What APNs answered in `apns-channel-id`; the app subscribes with it.
    public var apnsChannelID: String
    /// 0: APNs does not store broadcasts for offline devices; 1: it keeps the latest.
    public var messageStoragePolicy: Int

    public init(name: String, apnsChannelID: String, messageStoragePolicy: Int) {
        self.name = name
        self.apnsChannelID = apnsChannelID
        self.messageStoragePolicy = messageStoragePolicy
    }

    /// APNs allows this many channels per app and environment.
    public static let maximumPerEnvironment = 10_000

    static let audiencePrefix = "channel:"

    /// The audience id a channel's scheduled broadcasts are stored under. The `:` is outside
    /// ``Identifier``'s alphabet, so no device registered through the API can take it.
    public static func audienceID(name: String) -> String { audiencePrefix + name }

    /// The channel name an audience id stands for, or nil for a device.
    public static func name(audienceID: String) -> String? {
        audienceID.hasPrefix(audiencePrefix) ? String(audienceID.dropFirst(audiencePrefix.count)) : nil
    }

    /// - Throws: 422 `invalidMessageStoragePolicy` unless 0 or 1; `invalidId` for a bad name.
    public static func validate(name: String, messageStoragePolicy: Int) throws(HeraldError) {
        try Identifier.validate(name, field: "name")
        guard messageStoragePolicy == 0 || messageStoragePolicy == 1 else {
            throw .invalid(.invalidMessageStoragePolicy, "messageStoragePolicy must be 0 (no storage) or 1 (most recent message)")
        }
    }
}
