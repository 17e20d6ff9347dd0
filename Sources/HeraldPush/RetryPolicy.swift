import Foundation

/// Capped exponential backoff with jitter, within a push's deadline.
///
/// Jitter spreads retries from many pushes refused together (a 429 burst) so they do not come
/// back as one burst.
public struct RetryPolicy: Sendable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    public var maximumAttempts: Int
    /// The longest one attempt may take inside the push's deadline, so one hung connection
    /// cannot use up the whole budget: a push still waiting for a stream when its attempt runs
    /// out was never sent, and is tried on another connection. One already sent is not resent
    /// (the server may have processed it) and ends as `timeout`.
    public var attemptTimeout: Duration

    public init(initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5), maximumAttempts: Int = 6,
                attemptTimeout: Duration = .seconds(10)) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
        self.attemptTimeout = attemptTimeout
    }

    /// The wait before resending a request the server did not process (GOAWAY, REFUSED_STREAM):
    /// short, since the server never saw it, but growing, so a server that keeps refusing is not
    /// hammered. `resend` counts from 1.
    public func resendDelay(afterResend resend: Int) -> Duration {
        min(.milliseconds(5) * (1 << min(resend - 1, 10)), .milliseconds(500))
    }

    /// The wait before attempt `attempt + 1` (attempt counts from 1): full exponential step,
    /// capped, then scaled by a random factor in 0.5...1.
    public func delay(afterAttempt attempt: Int) -> Duration {
        let exponent = min(attempt - 1, 20)
        let base = min(initialDelay * (1 << exponent), maximumDelay)
        return base * Double.random(in: 0.5...1.0)
    }
}
