import HeraldCore

/// A request that passed every APNs check: what the validator learned, ready for the inbox.
struct ValidatedPush: Sendable {
    /// Lowercased hex.
    var token: String
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
