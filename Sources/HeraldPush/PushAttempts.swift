import Foundation
import HeraldHTTP2
import Synchronization

/// The retry loop every push client shares (APNs, FCM, Web Push): rounds of attempts, each round
/// one batch over the connections, until every push has a final outcome or the deadline passes.
///
/// A round's sender answers one ``Verdict`` per push. What the server did not process (GOAWAY,
/// REFUSED_STREAM) is resent without using up an attempt; what it may have processed is never
/// resent; a refusal the service asks to retry (429, 5xx) waits and tries again.
struct PushAttempts {
    /// One push's progress through its attempts.
    struct Pending: Sendable {
        let index: Int
        var attempts = 0
        var resends = 0
        /// The service's last answer, so a deadline that ends a backoff reports the real refusal.
        var lastAnswer: PushOutcome?
        var notBefore = ContinuousClock.Instant.now
        /// The connection that did not process it last time; a resend prefers another.
        var avoid: ObjectIdentifier?
    }

    enum Verdict: Sendable {
        case done(PushOutcome)
        /// Try again after `delay`; `answer` is what the service said, if it said anything.
        case retry(after: Duration, answer: PushOutcome?)
        /// Not processed by the server on `connection`: resend elsewhere.
        case resend(avoiding: ObjectIdentifier?)
    }

    let retry: RetryPolicy

    /// Resends of requests the server did not process (GOAWAY, REFUSED_STREAM) allowed per push.
    static let maximumResends = 20

    /// Runs rounds until each of `addresses` has an outcome.
    ///
    /// - Parameters:
    ///   - addresses: each push's token or endpoint, for the outcomes a deadline writes.
    ///   - holds: for pending pushes the service asked to wait (a 429: APNs per device token, FCM
    ///     per project), when each may go again, by push index. Called once per round.
    ///   - round: sends the due pushes once with the attempt's time limit; one verdict each, in order.
    func run(addresses: [String], timeout: Duration,
             holds: ([Pending]) -> [Int: ContinuousClock.Instant] = { _ in [:] },
             round: ([Pending], Duration) async -> [Verdict]) async -> [PushOutcome] {
        let deadline = ContinuousClock.now + timeout
        var outcomes = [PushOutcome?](repeating: nil, count: addresses.count)
        var pending = addresses.indices.map { Pending(index: $0) }
        while !pending.isEmpty {
            let now = ContinuousClock.now
            guard now < deadline, !Task.isCancelled else {
                let reason = (Task.isCancelled ? HeraldPushReason.cancelled : .timeout).rawValue
                for push in pending {
                    outcomes[push.index] = push.lastAnswer
                        ?? PushOutcome(token: addresses[push.index], status: 504, reason: reason, attempts: push.attempts)
                }
                break
            }
            let held = holds(pending)
            if !held.isEmpty {
                for index in pending.indices {
                    if let until = held[pending[index].index] { pending[index].notBefore = max(pending[index].notBefore, until) }
                }
            }
            let due = pending.filter { $0.notBefore <= now }
            guard !due.isEmpty else {
                try? await Task.sleep(until: min(pending.map(\.notBefore).min()!, deadline))
                continue
            }
            pending.removeAll { $0.notBefore <= now }
            let verdicts = await round(due, min(deadline - now, retry.attemptTimeout))
            for (var push, verdict) in zip(due, verdicts) {
                push.attempts += 1
                switch verdict {
                case .done(let outcome):
                    outcomes[push.index] = outcome
                case .retry(let delay, let answer):
                    if push.attempts >= retry.maximumAttempts {
                        outcomes[push.index] = answer ?? push.lastAnswer
                            ?? PushOutcome(token: addresses[push.index], status: 502, reason: HeraldPushReason.connectFailed.rawValue,
                                           attempts: push.attempts)
                    } else {
                        push.lastAnswer = answer ?? push.lastAnswer
                        push.notBefore = .now + delay
                        pending.append(push)
                    }
                case .resend(let connection) where push.resends < Self.maximumResends:
                    push.resends += 1
                    push.attempts -= 1
                    push.avoid = connection
                    push.notBefore = .now + retry.resendDelay(afterResend: push.resends)
                    pending.append(push)
                case .resend:
                    outcomes[push.index] = PushOutcome(token: addresses[push.index], status: 502,
                                                       reason: HeraldPushReason.notProcessed.rawValue, attempts: push.attempts)
                }
            }
        }
        return outcomes.map { $0! }
    }

    /// The verdict on a request that got no answer: what the server did not process is resent;
    /// a failed connect or a full queue is tried again while attempts remain; what the server may
    /// have processed is never resent.
    func verdict(on error: HTTP2Error, connection: ObjectIdentifier?, pending: Pending, address: String) -> Verdict {
        switch error {
        case .notProcessed:
            return .resend(avoiding: connection)
        case .connectFailed where pending.attempts + 1 < retry.maximumAttempts,
             .queueFull where pending.attempts + 1 < retry.maximumAttempts:
            return .retry(after: retry.delay(afterAttempt: pending.attempts + 1), answer: nil)
        case .timeout:
            return .done(pending.lastAnswer ?? PushOutcome(token: address, status: 504, reason: HeraldPushReason.timeout.rawValue,
                                                           attempts: pending.attempts + 1))
        case .cancelled:
            return .done(PushOutcome(token: address, status: 504, reason: HeraldPushReason.cancelled.rawValue,
                                     attempts: pending.attempts + 1))
        default:
            return .done(PushOutcome(token: address, status: 502, reason: APNsClient.reason(for: error),
                                     attempts: pending.attempts + 1))
        }
    }

    /// The verdict on a service's "wait" answers, as FCM and Web Push give them: 429 and 5xx are
    /// tried again after `Retry-After` (else the backoff), and a 429 also holds whatever
    /// `rateLimited` covers (the FCM project, the Web Push origin) until then. nil for any other answer.
    func verdict(onWait response: HTTP2Response, outcome: PushOutcome, pending: Pending,
                 rateLimited: (ContinuousClock.Instant) -> Void) -> Verdict? {
        guard response.status == 429 || [500, 502, 503, 504].contains(response.status) else { return nil }
        let wait = Self.retryAfter(response) ?? retry.delay(afterAttempt: pending.attempts + 1)
        if response.status == 429 { rateLimited(.now + wait) }
        return .retry(after: wait, answer: outcome)
    }

    /// A `Retry-After` header in seconds (the date form is read as absent).
    static func retryAfter(_ response: HTTP2Response) -> Duration? {
        guard let text = response.header("retry-after"), let seconds = Int(text.trimmingCharacters(in: .whitespaces)),
              seconds >= 0 else { return nil }
        return .seconds(min(seconds, 3600))
    }
}

/// When a push service asked for everyone to wait (a 429 for the whole project or origin).
final class ServiceHold: Sendable {
    private let until = Mutex<ContinuousClock.Instant?>(nil)

    func hold(until instant: ContinuousClock.Instant) {
        until.withLock { current in if current.map({ $0 < instant }) ?? true { current = instant } }
    }

    var heldUntil: ContinuousClock.Instant? { until.withLock { $0 } }
}
