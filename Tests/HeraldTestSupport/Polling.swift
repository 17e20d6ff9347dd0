import Foundation

/// Polls `condition` every `interval` until it holds, for at most `timeout`; returns whether it did.
public func pollUntil(timeout: Duration = .seconds(5), interval: Duration = .milliseconds(20),
                      _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: interval)
    }
}

/// Polls `condition` every `interval` until it returns a value, for at most `timeout`.
public func eventually<Value>(timeout: Duration = .seconds(10), interval: Duration = .milliseconds(100),
                              _ condition: () async throws -> Value?) async rethrows -> Value? {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await condition() { return value }
        guard ContinuousClock.now < deadline else { return nil }
        try? await Task.sleep(for: interval)
    }
}
