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

    public init(token: String, status: Int, apnsID: String? = nil, reason: String? = nil, timestamp: Int64? = nil,
                attempts: Int = 1) {
        self.token = token
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.timestamp = timestamp
        self.attempts = attempts
    }

    public var succeeded: Bool { status == 200 }

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
        switch status {
        case 200: .accepted
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
        "credentialPathNotAllowed",
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
