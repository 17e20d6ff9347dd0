import Foundation

// The one place tests wait for something another task, thread or process makes true: every
// suite polls with these, so a timeout reads the same everywhere and no suite keeps its own loop.

/// Polls `condition` every `interval` until it holds, for at most `timeout`; returns whether it did.
///
/// For a condition a test then checks: `#expect(await pollUntil { client.isClosed })`.
public func pollUntil(timeout: Duration = .seconds(5), interval: Duration = .milliseconds(20),
                      _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: interval)
    }
}

/// Polls `condition` every `interval` until it returns a value, for at most `timeout`; returns
/// that value, or nil when time ran out.
public func eventually<Value>(timeout: Duration = .seconds(10), interval: Duration = .milliseconds(100),
                              _ condition: () async throws -> Value?) async rethrows -> Value? {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await condition() { return value }
        guard ContinuousClock.now < deadline else { return nil }
        try? await Task.sleep(for: interval)
    }
}
