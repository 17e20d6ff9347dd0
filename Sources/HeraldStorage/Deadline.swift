import Synchronization

/// How waiting for a task with a deadline ended.
public enum DeadlineOutcome<Success: Sendable>: Sendable {
    case finished(Result<Success, any Error>)
    /// The deadline came first; the task may still be running.
    case timedOut
}

/// Waits for `work` for at most `timeout`, or until the caller is cancelled (then the work is
/// cancelled too and the outcome is a `CancellationError`). Unlike a task group, it returns at
/// the deadline even when the work ignores cancellation (a socket that went silent): the caller
/// decides what to do with work that is still running.
///
/// ```swift
/// let work = Task { try await store.probe() }
/// if case .timedOut = await outcome(of: work, within: .seconds(2)) { work.cancel() }
/// ```
public func outcome<Success: Sendable>(of work: Task<Success, any Error>,
                                      within timeout: Duration) async -> DeadlineOutcome<Success> {
    let once = ResumeOnce<DeadlineOutcome<Success>>()
    let timer = Task { try await Task.sleep(for: timeout) }
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            once.wait(continuation)
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
    } onCancel: {
        work.cancel()
        timer.cancel()
        once.resume(.finished(.failure(CancellationError())))
    }
}

/// Resumes a continuation once, with the first value offered, whether that comes before or
/// after the continuation is known.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Value, Never>)
        case offered(Value)
        case done
    }

    private let state = Mutex<State>(.idle)

    func wait(_ continuation: CheckedContinuation<Value, Never>) {
        let ready: Value? = state.withLock { state in
            switch state {
            case .idle:
                state = .waiting(continuation)
                return nil
            case .offered(let value):
                state = .done
                return value
            case .waiting, .done:
                return nil
            }
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func resume(_ value: Value) {
        let waiting: CheckedContinuation<Value, Never>? = state.withLock { state in
            switch state {
            case .idle:
                state = .offered(value)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .offered, .done:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }
}

extension StatusStore {
    /// Asks the store for a trivial read: nil when it answered within `timeout`, else what went
    /// wrong. A store that does not answer at all does not hold the caller past `timeout`.
    public func problem(within timeout: Duration) async -> String? {
        let work = Task { try await self.probe() }
        switch await outcome(of: work, within: timeout) {
        case .finished(.success):
            return nil
        case .finished(.failure(let error)):
            return "\(error)"
        case .timedOut:
            work.cancel()
            return "no answer within \(timeout)"
        }
    }
}
