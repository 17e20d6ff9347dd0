/// Every reason APNs gives for refusing a push, with its HTTP status.
///
/// The gateway branches on these: some mark a device token dead, some are retried, and one
/// (`TooManyProviderTokenUpdates`) means our own token handling is broken.
public enum APNsReason: String, CaseIterable, Sendable, Codable {
    // 400
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    // 400, broadcast channels (iOS 18)
    case badChannelId = "BadChannelId"
    case missingChannelId = "MissingChannelId"
    case invalidPolicy = "InvalidPolicy"
    // 403
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
    // 404, 405
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case channelNotRegistered = "ChannelNotRegistered"
    // 410
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"
    // 413
    case payloadTooLarge = "PayloadTooLarge"
    // 429
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"
    // 5xx
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"

    /// The HTTP status APNs answers with for this reason.
    public var status: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
             .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
             .missingTopic, .payloadEmpty, .topicDisallowed, .badChannelId, .missingChannelId, .invalidPolicy:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
             .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken:
            return 403
        case .badPath, .channelNotRegistered: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        }
    }

    /// The device token is dead: stop sending to it and tell the app (410, and 400 BadDeviceToken).
    public var invalidatesToken: Bool {
        self == .unregistered || self == .expiredToken || self == .badDeviceToken
    }

    /// Whether this answer marks the token dead, given whether the app's current push settings
    /// have had a push accepted yet.
    ///
    /// `BadDeviceToken` also means "a token of the other environment": right after an app's
    /// environment changes (development to production, or a mistaken edit), every stored token
    /// gets it. So it counts only once the environment has accepted a push, which shows the
    /// environment is right and the token is what is wrong. Until then the token is kept and the
    /// answer is still reported. `Unregistered` and `ExpiredToken` come only from the token's own
    /// environment and always count.
    public func invalidatesToken(environmentConfirmed: Bool) -> Bool {
        self == .badDeviceToken ? environmentConfirmed : invalidatesToken
    }

    /// Worth sending again after a backoff: rate limits and server trouble.
    ///
    /// `TooManyProviderTokenUpdates` is excluded on purpose: it means the provider token was
    /// renewed too often, and answering it by renewing or resending makes it worse.
    public var isRetriable: Bool {
        switch self {
        case .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown: return true
        default: return false
        }
    }

    /// The provider token was refused as stale; the only 403 that a fresh token fixes.
    public var needsFreshProviderToken: Bool { self == .expiredProviderToken }
}
