/// Runs a store call until it succeeds or `deadline` passes, waiting between attempts with
/// capped, jittered exponential backoff (100 ms doubling to 5 s). For writes whose loss would
/// repeat work already done (a feedback outcome, a hook's answer): a passing fault should not
/// cost a second push.
///
/// - Throws: the last attempt's error once `deadline` has passed, or `CancellationError`.
///
/// ```swift
/// try await retryingStoreCall(until: .now + .seconds(10)) {
///     try await store.recordFeedback(events)
/// }
/// ```
public func retryingStoreCall<Result>(until deadline: ContinuousClock.Instant,
                                      isolation: isolated (any Actor)? = #isolation,
                                      _ call: () async throws -> Result) async throws -> Result {
    var failures = 0
    while true {
        do {
            return try await call()
        } catch {
            failures += 1
            guard ContinuousClock.now < deadline, !Task.isCancelled else { throw error }
            try await Task.sleep(for: storeRetryDelay(afterFailures: failures))
        }
    }
}

/// The wait before trying a failed store call again: 100 ms doubling to 5 s, drawn between half
/// and all of it, so nodes that failed together do not retry together.
public func storeRetryDelay(afterFailures failures: Int) -> Duration {
    let ceiling = min(5_000, 100 << min(max(failures, 0), 6))
    return .milliseconds(Int.random(in: ceiling / 2...ceiling))
}
