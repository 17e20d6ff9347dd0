import HeraldCore

/// Failures the sandbox injects on purpose, so that clients can be tested against every answer
/// APNs can give. Set at start and replaced at run time through the admin API (`PUT /faults`).
///
/// Token faults apply only to requests that pass every check, because they stand for what
/// happened to the device, not for a malformed request.
public struct SandboxFaults: Codable, Sendable, Equatable {
    /// Tokens answered with 410 `Unregistered` and a timestamp, as for an uninstalled app.
    public var unregistered: [String]
    /// Tokens answered with exactly this reason and its status, to provoke any APNs answer.
    public var reasons: [String: APNsReason]
    /// Share of accepted requests (0...1) answered 429 `TooManyRequests`.
    public var tooManyRequestsRate: Double
    /// Share of accepted requests (0...1) answered 503 `ServiceUnavailable`.
    public var unavailableRate: Double
    /// Send GOAWAY once a connection has carried this many streams; nil never does.
    public var goAwayAfterStreams: Int?
    /// Delay before every answer, to exercise client timeouts and concurrency.
    public var latencyMilliseconds: Int
    /// The `timestamp` (unix milliseconds) that token-fault 410 answers carry: when APNs last
    /// knew the token was dead. nil means now; an earlier one stands for a late answer.
    public var unregisteredTimestamp: Int64?

    public init(unregistered: [String] = [], reasons: [String: APNsReason] = [:], tooManyRequestsRate: Double = 0,
                unavailableRate: Double = 0, goAwayAfterStreams: Int? = nil, latencyMilliseconds: Int = 0,
                unregisteredTimestamp: Int64? = nil) {
        self.unregistered = unregistered
        self.reasons = reasons
        self.tooManyRequestsRate = tooManyRequestsRate
        self.unavailableRate = unavailableRate
        self.goAwayAfterStreams = goAwayAfterStreams
        self.latencyMilliseconds = latencyMilliseconds
        self.unregisteredTimestamp = unregisteredTimestamp
    }

    enum CodingKeys: String, CodingKey {
        case unregistered, reasons, tooManyRequestsRate, unavailableRate, goAwayAfterStreams, latencyMilliseconds
        case unregisteredTimestamp
    }

    /// Every field is optional, so `{"unregistered": ["ab12"]}` is a complete fault set.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            unregistered: try container.decodeIfPresent([String].self, forKey: .unregistered) ?? [],
            reasons: try container.decodeIfPresent([String: APNsReason].self, forKey: .reasons) ?? [:],
            tooManyRequestsRate: try container.decodeIfPresent(Double.self, forKey: .tooManyRequestsRate) ?? 0,
            unavailableRate: try container.decodeIfPresent(Double.self, forKey: .unavailableRate) ?? 0,
            goAwayAfterStreams: try container.decodeIfPresent(Int.self, forKey: .goAwayAfterStreams),
            latencyMilliseconds: try container.decodeIfPresent(Int.self, forKey: .latencyMilliseconds) ?? 0,
            unregisteredTimestamp: try container.decodeIfPresent(Int64.self, forKey: .unregisteredTimestamp))
        if let problem = validationProblem {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: problem))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(unregistered, forKey: .unregistered)
        try container.encode(reasons, forKey: .reasons)
        try container.encode(tooManyRequestsRate, forKey: .tooManyRequestsRate)
        try container.encode(unavailableRate, forKey: .unavailableRate)
        try container.encodeIfPresent(goAwayAfterStreams, forKey: .goAwayAfterStreams)
        try container.encode(latencyMilliseconds, forKey: .latencyMilliseconds)
        try container.encodeIfPresent(unregisteredTimestamp, forKey: .unregisteredTimestamp)
    }

    /// Why these faults make no sense, or nil; rates outside 0...1 would silently mean 0 or 1.
    public var validationProblem: String? {
        if !(0...1).contains(tooManyRequestsRate) { return "tooManyRequestsRate must be between 0 and 1" }
        if !(0...1).contains(unavailableRate) { return "unavailableRate must be between 0 and 1" }
        if let goAwayAfterStreams, goAwayAfterStreams < 1 { return "goAwayAfterStreams must be at least 1" }
        if latencyMilliseconds < 0 { return "latencyMilliseconds must not be negative" }
        return nil
    }

    /// The fault reason for a lowercased device token, if any; hex compares case-insensitively.
    func reason(forToken token: String) -> APNsReason? {
        if let reason = reasons.first(where: { $0.key.lowercased() == token })?.value { return reason }
        if unregistered.contains(where: { $0.lowercased() == token }) { return .unregistered }
        return nil
    }
}
