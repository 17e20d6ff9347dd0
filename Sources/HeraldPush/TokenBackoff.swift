import Synchronization

/// Device tokens APNs answered `429 TooManyRequests` for, and when each may be tried again.
///
/// The limit is APNs' per-device rate (too many pushes to one device), so the backoff holds that
/// token only: other pushes on the same connection go on at full speed, and every push to the
/// token, from any batch, waits out the same backoff.
final class TokenBackoff: Sendable {
    private let until = Mutex<[String: ContinuousClock.Instant]>([:])

    /// Holds `token` until `instant` (never shortening a longer hold).
    func hold(_ token: String, until instant: ContinuousClock.Instant) {
        until.withLock { until in
            if let current = until[token], current >= instant { return }
            until[token] = instant
        }
    }

    /// False while no token is held: the common case skips collecting a batch's tokens.
    var holdsAny: Bool { !until.withLock { $0.isEmpty } }

    /// When each of `tokens` may be sent, for those still held at `now`; expired holds are dropped.
    func holds(for tokens: some Sequence<String>, now: ContinuousClock.Instant) -> [String: ContinuousClock.Instant] {
        until.withLock { until in
            guard !until.isEmpty else { return [:] }
            until = until.filter { $0.value > now }
            var held: [String: ContinuousClock.Instant] = [:]
            for token in tokens { if let instant = until[token] { held[token] = instant } }
            return held
        }
    }
}
