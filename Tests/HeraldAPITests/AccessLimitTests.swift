import Foundation
import HeraldAPI
import HeraldCore
import HeraldSandbox
import Hummingbird
import Testing

// "Bound every queue and every wait": each API key has a token bucket (`limits.ratePerSecond`,
// `limits.rateBurst`), and no request runs longer than `limits.requestTimeoutMs`.

@Suite("Access limits: per-key rate limit and request timeout")
struct AccessLimitTests {
    @Test("Past its burst a key gets 429 rateLimited with Retry-After, the refused request changes nothing, and other keys are unaffected")
    func rateLimitPerKey() async throws {
        var options = GuardOptions()
        // One token every 50 s: slow setup requests on a loaded machine cannot refill the bucket.
        options.ratePerSecond = 0.02
        options.rateBurst = 3
        try await withGuardedHerald(options: options) { herald in
            // Two of the admin key's three tokens.
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let device = "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)"
            for _ in 0..<3 {
                let reply = try await herald.get(device, key: GuardKeys.alarm)
                #expect(reply.status == .ok, "\(reply.text)")
            }
            let push = try await herald.post("/v1/push", json: ["notifications": [
                ["app": GuardApps.alarm, "tokens": [guardToken(1)], "aps": ["alert": "one too many"]],
            ]], key: GuardKeys.alarm)
            expectError(push, status: .tooManyRequests, reason: "rateLimited")
            let retryAfter = try #require(push.headers[.retryAfter].flatMap { Int($0) }, "Retry-After is whole seconds")
            #expect((1...50).contains(retryAfter), "at one request per 50 s the next token is at most 50 s away")
            let rename = try await herald.put(device, json: ["timeZone": "Asia/Tokyo"], key: GuardKeys.alarm)
            expectError(rename, status: .tooManyRequests, reason: "rateLimited")
            #expect(rename.headers[.retryAfter] != nil)

            // Nothing went out and nothing changed: read with a key whose bucket is still full.
            #expect(herald.pushedCount == 0)
            let stored = try await herald.get(device, key: GuardKeys.otherAdmin)
            #expect(stored.json["timeZone"].string == "Europe/Paris", "\(stored.text)")
            // The admin key still has its third token: buckets are per key.
            let admin = try await herald.get(device, key: GuardKeys.admin)
            #expect(admin.status == .ok, "\(admin.text)")
            // That the key works again after Retry-After is RateLimiterTests' rule, on a moved
            // clock: here it would cost a 50 s wait.
        }
    }

    @Test("A key's bucket cannot be dodged by spelling the Authorization header differently",
          arguments: ["Bearer  \(GuardKeys.alarm)", "Bearer \t\(GuardKeys.alarm)", "Bearer   \(GuardKeys.alarm)"])
    func rateLimitIgnoresHeaderSpelling(authorization: String) async throws {
        var options = GuardOptions()
        // One token every 50 s: slow setup requests on a loaded machine cannot refill the bucket.
        options.ratePerSecond = 0.02
        options.rateBurst = 2
        try await withGuardedHerald(options: options) { herald in
            let app = "/v1/apps/\(GuardApps.alarm)"
            let created = try await herald.put(app, json: [:], key: GuardKeys.admin)
            try #require(created.status == .created)
            // The server accepts the respelled header as the same key...
            for _ in 0..<2 {
                let reply = try await herald.send(.get, app, key: nil, authorization: authorization)
                #expect(reply.status == .ok, "\(reply.text)")
            }
            // ...so it is the same bucket, whichever spelling comes next.
            let plain = try await herald.get(app, key: GuardKeys.alarm)
            #expect(plain.status == .tooManyRequests, "the plain spelling got a bucket of its own: \(plain.status)")
            let respelled = try await herald.send(.get, app, key: nil, authorization: authorization)
            #expect(respelled.status == .tooManyRequests, "the respelled header got a bucket of its own: \(respelled.status)")
            if respelled.status == .tooManyRequests {
                expectError(respelled, status: .tooManyRequests, reason: "rateLimited")
            }
        }
    }

    @Test("A request slower than limits.requestTimeoutMs is answered 503 requestTimeout, on time")
    func requestTimeout() async throws {
        var options = GuardOptions()
        // Wide enough for the setup requests on a loaded machine; the sandbox answers every push 20 s
        // late: far past the request timeout.
        options.requestTimeoutMilliseconds = 2000
        options.faults = SandboxFaults(latencyMilliseconds: 20_000)
        try await withGuardedHerald(options: options) { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let started = ContinuousClock.now
            let reply = try await herald.post("/v1/push", json: ["notifications": [
                ["app": GuardApps.alarm, "tokens": [guardToken(1)], "aps": ["alert": "slow peer"]],
            ]])
            let elapsed = ContinuousClock.now - started
            expectError(reply, status: .serviceUnavailable, reason: "requestTimeout")
            #expect(elapsed < .seconds(10), "the 503 came after \(elapsed): the request waited for the slow peer")
            // A fast request on the same server is unaffected.
            let quick = try await herald.get("/v1/apps/\(GuardApps.alarm)")
            #expect(quick.status == .ok)
        }
    }
}
