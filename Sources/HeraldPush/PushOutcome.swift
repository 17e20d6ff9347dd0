import HeraldCore

/// What happened to one push to one token.
public struct PushOutcome: Hashable, Sendable {
    public var token: String
    /// APNs' HTTP status when APNs answered; otherwise Herald's: 410 (token known dead, not
    /// sent), 422 (refused by the push rules), 502 (transport failure), 504 (deadline passed).
    public var status: Int
    public var apnsID: String?
    /// APNs' reason on failure, or Herald's own when the push never got an answer.
    public var reason: String?
    /// APNs' `timestamp` on 410, in milliseconds.
    public var timestamp: Int64?
    /// How many times it was sent.
    public var attempts: Int
    /// The service's own words on a refusal (FCM's `error.message`), when it gave any.
    public var detail: String?

    public init(token: String, status: Int, apnsID: String? = nil, reason: String? = nil, timestamp: Int64? = nil,
                attempts: Int = 1, detail: String? = nil) {
        self.detail = detail
        self.token = token
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.timestamp = timestamp
        self.attempts = attempts
    }

    /// Accepted: APNs' and FCM's 200, a Web Push service's 201.
    public var succeeded: Bool { (200..<300).contains(status) }

    /// Whether a stored refusal reason says the address was dead (so the inbox is the only way
    /// left): Herald's `tokenInvalidated`, or a service's reason that invalidates it.
    public static func invalidates(reason: String) -> Bool {
        reason == HeraldPushReason.tokenInvalidated.rawValue || APNsReason(rawValue: reason)?.invalidatesToken == true
            || reason == FCMReason.unregistered || reason == WebPushReason.subscriptionGone
    }

    /// Whether the answer means the address is dead and must not be sent to again: APNs'
    /// `Unregistered` or `BadDeviceToken`, FCM's `UNREGISTERED` (or `INVALID_ARGUMENT` on the
    /// token), a Web Push service's 404 or 410.
    public var invalidatesAddress: Bool {
        apnsReason?.invalidatesToken == true || FCMReason.invalidatesToken(self) || reason == WebPushReason.subscriptionGone
    }

    /// What happened, in the few words metrics and the status page count by.
    public enum Result: String, Sendable, CaseIterable {
        /// APNs accepted it.
        case accepted
        /// The token is dead: APNs answered 410, or it was known dead and not sent.
        case unregistered
        /// APNs refused it (any other 4xx).
        case rejected
        /// Herald found it invalid before sending (422: no push settings, credentials that do not load).
        case invalid
        /// A transport failure or an APNs server error.
        case failed
        /// Its deadline passed, or its caller went away.
        case timedOut
    }

    public var result: Result {
        if invalidatesAddress { return .unregistered }
        return switch status {
        case 200..<300: .accepted
        case 410: .unregistered
        case 422: .invalid
        case 504: .timedOut
        case 400..<500: .rejected
        default: .failed
        }
    }

    /// ``reason`` from a bounded set, for a metric label: APNs' known reasons and Herald's own as
    /// they are, any other text (an unknown server's) as `other`, none as `none`.
    public var boundedReason: String {
        guard let reason else { return "none" }
        return apnsReason != nil || Self.heraldReasons.contains(reason) ? reason : "other"
    }

    /// Every reason Herald itself gives a push that APNs did not answer: the push gateway's own,
    /// and the refusals of push settings that do not load (422).
    static let heraldReasons: Set<String> = Set(HeraldPushReason.allCases.map(\.rawValue)).union([
        "pushNotConfigured", "invalidPushCredentials", "invalidPushEnvironment", "pushEnvironmentNotAllowed",
        "credentialPathNotAllowed", "fcmNotConfigured", "webPushNotConfigured", "invalidFCMServiceAccount", "invalidFCMSettings",
        "invalidWebPushSettings", "payloadTooLarge", FCMReason.unregistered, FCMReason.invalidArgument, FCMReason.senderIDMismatch,
        FCMReason.quotaExceeded, "RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL", "THIRD_PARTY_AUTH_ERROR", FCMReason.oauthTokenRefused,
        FCMReason.oauthTokenUnavailable, WebPushReason.subscriptionGone, WebPushReason.vapidRefused, WebPushReason.tooManyRequests,
    ])

    /// The typed APNs reason, when APNs gave one this gateway knows.
    public var apnsReason: APNsReason? { reason.flatMap(APNsReason.init(rawValue:)) }
}

/// The reasons the push gateway gives a push that APNs did not answer, worded once.
public enum HeraldPushReason: String, CaseIterable, Sendable {
    /// Not sent: APNs declared the token dead before.
    case tokenInvalidated
    case timeout, cancelled
    /// Transport failures (``APNsClient`` maps each `HTTP2Error` to one).
    case notProcessed, connectionClosed, streamReset, tlsFailure, alpnNotNegotiated, connectFailed, queueFull,
         protocolError, invalidConfiguration
}
