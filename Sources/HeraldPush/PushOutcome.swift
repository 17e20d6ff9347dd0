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

    /// The typed APNs reason, when APNs gave one this gateway knows.
    public var apnsReason: APNsReason? { reason.flatMap(APNsReason.init(rawValue:)) }
}
