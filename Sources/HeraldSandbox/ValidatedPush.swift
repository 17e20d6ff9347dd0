import HeraldCore

/// Where a push goes: one device, or every Live Activity on an iOS 18 broadcast channel.
enum PushAddress: Sendable, Equatable {
    /// `/3/device/<token>`; the token lowercased.
    case device(token: String)
    /// `/4/broadcasts/apps/<bundle>` with `apns-channel-id`. Whether APNs knows the channel is
    /// not the validator's to say: the registry answers that.
    case channel(bundleID: String, channelID: String)
}

/// A request that passed every APNs check: what the validator learned, ready for the inbox.
struct ValidatedPush: Sendable {
    var address: PushAddress
    var pushType: APNsPushType
    var topic: String
    var priority: Int
    /// The request's `apns-id`, as sent; nil when the sender left it to the server.
    var apnsId: String?
    var collapseId: String?
    var expiration: Int?
    var headers: [String: String]
    var payload: JSONValue
    var credential: SandboxCredential
}
