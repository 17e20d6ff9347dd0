import Foundation

/// Capped exponential backoff with jitter, within a push's deadline.
///
/// Jitter spreads retries from many pushes refused together (a 429 burst) so they do not come
/// back as one burst.
public struct RetryPolicy: Sendable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    public var maximumAttempts: Int

    public init(initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5), maximumAttempts: Int = 6) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// The wait before attempt `attempt + 1` (attempt counts from 1): full exponential step,
    /// capped, then scaled by a random factor in 0.5...1.
    public func delay(afterAttempt attempt: Int) -> Duration {
        let exponent = min(attempt - 1, 20)
        let base = min(initialDelay * (1 << exponent), maximumDelay)
        return base * Double.random(in: 0.5...1.0)
    }
}
