import Synchronization

/// How waiting for a task with a deadline ended.
public enum DeadlineOutcome<Success: Sendable>: Sendable {
    case finished(Result<Success, any Error>)
    /// The deadline came first; the task may still be running.
    case timedOut
}

/// Waits for `work` for at most `timeout`. Unlike a task group, it returns at the deadline even
/// when the work ignores cancellation (a socket that went silent): the caller decides what to do
/// with work that is still running.
///
/// ```swift
/// let work = Task { try await store.probe() }
/// if case .timedOut = await outcome(of: work, within: .seconds(2)) { work.cancel() }
/// ```
public func outcome<Success: Sendable>(of work: Task<Success, any Error>,
                                      within timeout: Duration) async -> DeadlineOutcome<Success> {
    let timer = Task { try await Task.sleep(for: timeout) }
    return await withCheckedContinuation { continuation in
        let once = ResumeOnce(continuation)
        Task {
            let result = await work.result
            timer.cancel()
            once.resume(.finished(result))
        }
        Task {
            // A timer cancelled because the work finished first resumes nothing: that came first.
            if (try? await timer.value) != nil { once.resume(.timedOut) }
        }
    }
}

/// Resumes a continuation once, whichever of two racing tasks gets there first.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(returning: value)
    }
}
