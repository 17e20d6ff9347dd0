import Foundation
import HeraldCore
import HeraldPush
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Retries: 429 and 5xx are retried with capped exponential backoff and jitter; 4xx never")
struct RetryTests {
    enum Fault: String, CaseIterable, CustomTestStringConvertible {
        case tooManyRequests = "429 TooManyRequests"
        case serviceUnavailable = "503 ServiceUnavailable"

        var faults: SandboxFaults {
            switch self {
            case .tooManyRequests: return SandboxFaults(tooManyRequestsRate: 1)
            case .serviceUnavailable: return SandboxFaults(unavailableRate: 1)
            }
        }

        var testDescription: String { rawValue }
    }

    @Test("a push refused with 429 or 503 is retried with backoff and succeeds once the fault is lifted",
          arguments: Fault.allCases)
    func retriedUntilFaultLifts(_ fault: Fault) async throws {
        let token = deviceToken(300)
        try await withSandbox(faults: fault.faults) { sandbox in
            try await withPushGateway(timeout: .seconds(10)) { gateway in
                let app = sandbox.app()
                let push = try alert(to: token)
                let start = ContinuousClock.now
                let sending = Task { await gateway.send([push], app: app) }
                // Lift the fault ~300 ms in, once the sandbox has refused the push at least once.
                #expect(await pollUntil(interval: .milliseconds(5)) { sandbox.refusals(token) >= 1 })
                try await Task.sleep(until: start + .milliseconds(300))
                #expect(sandbox.inbox(token).isEmpty, "nothing is accepted while the fault holds")
                sandbox.faults = SandboxFaults()

                let (outcomes, elapsed) = await timed { await sending.value }
                let outcome = try #require(outcomes.first)
                #expect(outcome.status == 200)
                #expect(outcome.apnsID == push.id)
                #expect(outcome.attempts > 1)
                #expect(outcome.attempts <= RetryPolicy().maximumAttempts)
                #expect(sandbox.refusals(token) == outcome.attempts - 1, "every attempt but the last was refused")
                #expect(elapsed < .seconds(3), "backoff stays short at first: 50–100 ms, then doubling")
                #expect(sandbox.inbox(token).map(\.apnsId) == [push.id], "delivered exactly once")
            }
        }
    }

    @Test("429 for one device token holds that token, not the connection: the batch's other pushes go at once, and a later push to the token waits out the hold")
    func tooManyRequestsHoldsOneToken() async throws {
        let limited = deviceToken(320)
        let others = (321..<330).map(deviceToken)
        try await withSandbox(faults: SandboxFaults(reasons: [limited: .tooManyRequests])) { sandbox in
            // One attempt, so the 429 is final at once and its hold (200–400 ms) is still running after.
            let retry = RetryPolicy(initialDelay: .milliseconds(400), maximumAttempts: 1)
            try await withClient(sandbox.settings(), retry: retry) { client in
                let outcomes = await client.send(try ([limited] + others).map { try alert(to: $0) }, timeout: .seconds(5))
                #expect(outcomes[0].status == 429)
                for outcome in outcomes.dropFirst() {
                    #expect(outcome.status == 200 && outcome.attempts == 1, "the others were not held back")
                }
                #expect(others.allSatisfy { sandbox.inbox($0).count == 1 })

                // The fault is gone, but the token is still held: a push due within the hold is not sent.
                sandbox.faults = SandboxFaults()
                let held = await client.send([try alert(to: limited)], timeout: .milliseconds(100))
                #expect(held[0].status == 504 && held[0].attempts == 0, "held: \(held[0])")
                #expect(sandbox.inbox(limited).isEmpty)
                #expect(sandbox.refusals(limited) == 1)
                // Another token on the same connection goes at once meanwhile.
                #expect(await client.send([try alert(to: others[0])], timeout: .milliseconds(100))[0].status == 200)

                // After the hold, the token is sent again.
                let later = await client.send([try alert(to: limited)], timeout: .seconds(2))
                #expect(later[0].status == 200)
            }
        }
    }

    @Test("the waits between retries grow exponentially, are capped, and are jittered into [½, 1] of the step")
    func backoffShape() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), maximumAttempts: 10)
        for attempt in 1...8 {
            let step = min(Duration.milliseconds(100) * (1 << (attempt - 1)), .seconds(1))
            let delays = (0..<200).map { _ in policy.delay(afterAttempt: attempt) }
            #expect(delays.allSatisfy { $0 >= step / 2 && $0 <= step }, "attempt \(attempt)")
            #expect(Set(delays).count > 1, "jitter spreads retries out")
        }
    }

    @Test("4xx answers are never retried")
    func clientErrorsNotRetried() async throws {
        let reasons = APNsReason.allCases.filter { (400..<500).contains($0.status) && $0 != .tooManyRequests }
        let tokens = reasons.indices.map { deviceToken(310 + $0) }
        let faults = SandboxFaults(reasons: Dictionary(uniqueKeysWithValues: zip(tokens, reasons)))
        try await withSandbox(faults: faults) { sandbox in
            try await withPushGateway(timeout: .seconds(10)) { gateway in
                let outcomes = await gateway.send(try tokens.map { try alert(to: $0) }, app: sandbox.app())
                #expect(outcomes.map(\.reason) == reasons.map(\.rawValue))
                #expect(outcomes.allSatisfy { $0.attempts == 1 })
                #expect(sandbox.totalRefusals == reasons.count, "each push reached the sandbox once")
            }
        }
    }

    @Test("when retries run out, the outcome is APNs' last answer")
    func retriesExhausted() async throws {
        try await withSandbox(faults: SandboxFaults(unavailableRate: 1)) { sandbox in
            try await withClient(sandbox.settings(), retry: quickRetry) { client in
                let outcome = await client.send(try alert(to: deviceToken(330)), timeout: .seconds(5))
                #expect(outcome.status == 503)
                #expect(outcome.reason == "ServiceUnavailable")
                #expect(outcome.attempts == quickRetry.maximumAttempts)
                #expect(sandbox.totalRefusals == quickRetry.maximumAttempts)
            }
        }
    }

    @Test("when the deadline ends a retry's backoff, the outcome still says what APNs last answered")
    func deadlineDuringBackoff() async throws {
        try await withSandbox(faults: SandboxFaults(tooManyRequestsRate: 1)) { sandbox in
            // Backoff waits of at least 10 s, but only 3 s to spend (connecting included, which can take a
            // while on a loaded machine).
            let slow = RetryPolicy(initialDelay: .seconds(20), maximumDelay: .seconds(20), maximumAttempts: 6)
            try await withClient(sandbox.settings(), retry: slow) { client in
                let (outcome, elapsed) = try await timed {
                    await client.send(try alert(to: deviceToken(331)), timeout: .seconds(3))
                }
                #expect(elapsed < .seconds(10), "the push's deadline bounds the 10–20 s backoff")
                #expect(outcome.status == 429)
                #expect(outcome.reason == "TooManyRequests")
                #expect(outcome.attempts >= 1)
            }
        }
    }
}
