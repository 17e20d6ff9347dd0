import Foundation

/// When and how often ``HeraldClient`` sends a request again.
///
/// Idempotent requests (`GET`, `PUT`, `DELETE`), and `POST`s that carry an `Idempotency-Key`,
/// are sent again after a transport failure or a `503 Service Unavailable`, waiting the
/// server's `Retry-After` when it gives one, else an exponential backoff. Other requests are
/// sent once. The event stream uses the same backoff to reconnect, without an attempt limit.
///
/// ```swift
/// let client = HeraldClient(baseURL: url, retry: RetryPolicy(maxAttempts: 5, initialBackoff: .milliseconds(100)))
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// How many times a request is sent at most, the first time included (1: never again).
    public var maxAttempts: Int
    /// The wait before the first retry.
    public var initialBackoff: Duration
    /// The longest wait between two attempts.
    public var maxBackoff: Duration
    /// What each wait is multiplied by for the next one.
    public var multiplier: Double
    /// The longest `Retry-After` honoured: a server asking for a longer wait gets the error
    /// thrown instead.
    public var maxRetryAfter: Duration

    /// Creates a policy.
    ///
    /// - parameter maxAttempts: How many times a request is sent at most, the first included.
    /// - parameter initialBackoff: The wait before the first retry.
    /// - parameter maxBackoff: The longest wait between two attempts.
    /// - parameter multiplier: What each wait is multiplied by for the next one.
    /// - parameter maxRetryAfter: The longest `Retry-After` honoured.
    public init(maxAttempts: Int = 3, initialBackoff: Duration = .milliseconds(200), maxBackoff: Duration = .seconds(5),
                multiplier: Double = 2, maxRetryAfter: Duration = .seconds(30)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.multiplier = max(1, multiplier)
        self.maxRetryAfter = maxRetryAfter
    }

    /// Three attempts, 200 ms then 400 ms apart (with jitter), `Retry-After` up to 30 s.
    public static let `default` = RetryPolicy()

    /// Every request is sent once.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait after `failures` consecutive failures (1 or more): exponential, capped, with up
    /// to 20% jitter so clients that failed together do not retry together.
    public func backoff(afterFailures failures: Int) -> Duration {
        let base = Double(initialBackoff.components.seconds) + Double(initialBackoff.components.attoseconds) / 1e18
        let cap = Double(maxBackoff.components.seconds) + Double(maxBackoff.components.attoseconds) / 1e18
        let exponent = Double(max(0, failures - 1))
        let seconds = min(cap, base * pow(multiplier, min(exponent, 60)))
        let jittered = seconds * Double.random(in: 0.8...1.0)
        return .milliseconds(Int64((jittered * 1000).rounded()))
    }
}
