import Foundation
import HeraldCore
import HeraldPush
import HeraldTestSupport
import Synchronization
import Testing

// The sandbox, the push gateway, the temporary store, the dev credentials (`Dev`), `alert(to:)`
// and `quietLogger` are shared with the delivery suites: they live in HeraldTestSupport.

/// A device token: 32 bytes of hex, distinct for each `seed`.
func deviceToken(_ seed: Int) -> String { testDeviceToken(seed, family: 0xa5) }

/// An APNs client for the test, closed after `body`.
func withClient<T>(_ settings: PushSettings, retry: RetryPolicy = RetryPolicy(),
                   now: @escaping @Sendable () -> Date = { Date() },
                   _ body: (APNsClient) async throws -> T) async throws -> T {
    let client = try APNsClient(appID: Dev.bundleID, settings: settings, retry: retry, now: now)
    do {
        let result = try await body(client)
        await client.close()
        return result
    } catch {
        await client.close()
        throw error
    }
}

/// A retry policy that keeps tests fast: three tries, milliseconds apart.
let quickRetry = RetryPolicy(initialDelay: .milliseconds(2), maximumDelay: .milliseconds(10), maximumAttempts: 3)

/// A clock the test moves by hand, for provider-token ages.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ date: Date = Date()) {
        current = Mutex(date)
    }

    var now: Date {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    var closure: @Sendable () -> Date { { [self] in now } }
}

/// Time elapsed while running `body`.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let start = ContinuousClock.now
    let result = try await body()
    return (result, ContinuousClock.now - start)
}
