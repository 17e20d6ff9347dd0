import Foundation
import HeraldCore
import HeraldPush
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Responses: every APNs reason maps to a typed outcome")
struct APNsReasonTests {
    @Test("each APNs reason comes back with its exact reason and status; only 429 TooManyRequests and 5xx are retried",
          arguments: APNsReason.allCases)
    func everyReason(_ reason: APNsReason) async throws {
        let token = deviceToken(100)
        try await withSandbox(faults: SandboxFaults(reasons: [token: reason])) { sandbox in
            let ledger = TransientTokenLedger()
            // The gateway's own client, with its default retry policy.
            let outcome = try await withPushGateway(ledger: ledger) { gateway in
                try #require(await gateway.send([try alert(to: token)], app: sandbox.app()).first)
            }
            #expect(outcome.token == token)
            #expect(sandbox.refusals(token) == outcome.attempts, "attempts counts what the sandbox saw")
            #expect(outcome.status == reason.status)
            #expect(outcome.reason == reason.rawValue)
            #expect(outcome.apnsReason == reason)
            #expect(!outcome.succeeded)
            if reason.isRetriable {
                #expect(outcome.attempts == RetryPolicy().maximumAttempts,
                        "\(reason.rawValue) is retried until the retry policy's limit")
            } else {
                #expect(outcome.attempts == 1, "\(reason.rawValue) is never retried")
            }
            if reason.status == 410 {
                #expect(outcome.timestamp != nil, "a 410 carries APNs' timestamp")
            } else {
                #expect(outcome.timestamp == nil)
            }
            let invalidated = ledger.invalidated.map(\.token)
            // Nothing was accepted in this environment yet, so BadDeviceToken keeps the token
            // (TokenInvalidationTests covers it once the environment is confirmed).
            #expect(invalidated == (reason.invalidatesToken(environmentConfirmed: false) ? [token] : []),
                    "only Unregistered and ExpiredToken mark a token dead before the environment is confirmed")

            // With a tiny retry policy the limit is the policy's, not the default's.
            let quick = try await withClient(sandbox.settings(), retry: quickRetry) { client in
                await client.send(try alert(to: token), timeout: .seconds(5))
            }
            #expect(quick.reason == reason.rawValue)
            #expect(quick.status == reason.status)
            #expect(quick.attempts == (reason.isRetriable ? quickRetry.maximumAttempts : 1))
            #expect(sandbox.everything.isEmpty, "a refused push never reaches the inbox")
        }
    }

    @Test("only 429 TooManyRequests and 5xx count as retriable; TooManyProviderTokenUpdates is a defect, not a rate limit")
    func retriableReasons() {
        let retriable = Set(APNsReason.allCases.filter(\.isRetriable))
        #expect(retriable == [.tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown])
        #expect(APNsReason.tooManyProviderTokenUpdates.status == 429)
        #expect(!APNsReason.tooManyProviderTokenUpdates.isRetriable)
        #expect(APNsReason.allCases.filter { $0.status >= 500 }.allSatisfy { $0.isRetriable })
        #expect(Set(APNsReason.allCases.filter(\.invalidatesToken)) == [.unregistered, .expiredToken, .badDeviceToken])
    }

    @Test("TooManyProviderTokenUpdates is answered once and the provider token is not renewed")
    func tooManyProviderTokenUpdatesDoesNotRenew() async throws {
        let refused = deviceToken(101)
        let accepted = deviceToken(102)
        try await withSandbox(faults: SandboxFaults(reasons: [refused: .tooManyProviderTokenUpdates])) { sandbox in
            let clock = TestClock()
            try await withClient(sandbox.settings(), retry: RetryPolicy(maximumAttempts: 6), now: clock.closure) { client in
                let outcome = await client.send(try alert(to: refused), timeout: .seconds(5))
                #expect(outcome.status == 429)
                #expect(outcome.reason == "TooManyProviderTokenUpdates")
                #expect(outcome.attempts == 1)

                // Move the client's clock two hours back. A token signed now would be issued two
                // hours ago, which the sandbox refuses as expired; the cached one (issued for real
                // a moment ago) is still good. So a 200 proves the token was not renewed.
                clock.now = Date().addingTimeInterval(-2 * 3600)
                let next = await client.send(try alert(to: accepted), timeout: .seconds(5))
                #expect(next.status == 200, "the provider token was renewed after TooManyProviderTokenUpdates")
                #expect(next.attempts == 1)
            }

            // The check above can tell: a client that does sign at that clock is refused.
            try await withClient(sandbox.settings(), retry: RetryPolicy(maximumAttempts: 6), now: clock.closure) { fresh in
                let outcome = await fresh.send(try alert(to: accepted), timeout: .seconds(5))
                #expect(outcome.status == 403)
                #expect(outcome.reason == "ExpiredProviderToken")
                #expect(outcome.attempts == 1, "a token younger than 20 minutes is not renewed, even when refused as expired")
            }
            #expect(sandbox.inbox(accepted).count == 1)
        }
    }

    @Test("ExpiredProviderToken renews the token only once it is at least 20 minutes old, then resends")
    func expiredProviderTokenRenewsOldTokenOnly() async throws {
        let token = deviceToken(103)
        // The sandbox accepts provider tokens up to one minute old.
        try await withSandbox(maximumTokenAge: 60) { sandbox in
            let clock = TestClock(Date().addingTimeInterval(-30 * 60))
            try await withClient(sandbox.settings(), retry: RetryPolicy(maximumAttempts: 6), now: clock.closure) { client in
                // Signed 30 minutes ago by the real clock, 0 seconds old by the client's.
                let young = await client.send(try alert(to: token), timeout: .seconds(5))
                #expect(young.reason == "ExpiredProviderToken")
                #expect(young.attempts == 1)

                // Thirty minutes later for the client: old enough to renew, too young to renew unasked.
                clock.now = Date()
                let renewed = await client.send(try alert(to: token), timeout: .seconds(5))
                #expect(renewed.status == 200)
                #expect(renewed.attempts == 2, "refused with the old token, then accepted with a fresh one")
            }
            #expect(sandbox.inbox(token).count == 1)
        }
    }
}
