import Foundation
import HeraldCrypto
import Hummingbird
import Testing

// "Old timestamps are refused, and an idempotency key means a resend does not push twice." Inside
// the tolerance window a captured request must not push again either: every accepted signed
// message is remembered, and the key from the signed body cannot be overridden by a header.

@Suite("Signed inbound hooks: replays and limits")
struct HookReplayTests {
    /// The orders template with an idempotency key taken from the signed body's `/eventId`.
    static var keyedTemplate: [String: Any] {
        var template = HookFixture.template
        template["idempotencyKey"] = "/eventId"
        return template
    }

    @Test("The same signed request posted again pushes nothing: 200, Idempotent-Replayed, the first answer", arguments: 1...10)
    func replayPushesOnce(round: Int) async throws {
        try await withOrdersHook { herald in
            let body = HookFixture.event(order: "o-\(round)")
            let signature = herald.signature(body)
            let first = try await herald.deliverHook(body: body, signature: signature)
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.idempotentReplayed == nil)
            for _ in 0..<3 {
                let again = try await herald.deliverHook(body: body, signature: signature)
                #expect(again.status == .ok, "\(again.text)")
                #expect(again.idempotentReplayed == "true")
                #expect(again.json == first.json, "a replay must get the first answer")
            }
            #expect(herald.inbox(HookFixture.token).count == 1, "a replayed signed request pushed again")
        }
    }

    @Test("A replay with a new Idempotency-Key header, or a rearranged signature header, is still a replay")
    func replayCannotBeDisguised() async throws {
        try await withOrdersHook { herald in
            let body = HookFixture.event()
            let signature = herald.signature(body)
            let first = try await herald.deliverHook(body: body, signature: signature, idempotencyKey: "first-key")
            #expect(first.status == .ok, "\(first.text)")
            let parsed = try WebhookSignature.Header(parsing: signature)
            let padded = WebhookSignature.Header(timestamp: parsed.timestamp,
                                                 signatures: [Array(repeating: 7, count: 32)] + parsed.signatures + parsed.signatures).value
            for (header, key) in [(signature, "another-key"), (signature, nil), (padded, nil), (padded, "third-key")] {
                let again = try await herald.deliverHook(body: body, signature: header, idempotencyKey: key)
                #expect(again.status == .ok, "\(again.text)")
                #expect(again.idempotentReplayed == "true", "header \(header), key \(key ?? "none")")
            }
            #expect(herald.inbox(HookFixture.token).count == 1)
        }
    }

    @Test("The idempotency key from the signed body wins: a freshly signed resend with a new header key pushes nothing")
    func bodyKeyWinsOverHeader() async throws {
        try await withOrdersHook(definition: HookFixture.definition(template: Self.keyedTemplate)) { herald in
            let body = HookFixture.event(eventID: "evt-1")
            let first = try await herald.sendSignedHook(body: body, at: herald.now - 5, idempotencyKey: "header-1")
            #expect(first.status == .ok, "\(first.text)")
            let resend = try await herald.sendSignedHook(body: body, at: herald.now, idempotencyKey: "header-2")
            #expect(resend.status == .ok, "\(resend.text)")
            #expect(resend.idempotentReplayed == "true", "the header key replaced the signed body's key")
            #expect(herald.inbox(HookFixture.token).count == 1)
        }
    }

    @Test("A header key is one more key: a new event under a header key already used is answered as a resend")
    func headerKeyIsAdditional() async throws {
        try await withOrdersHook(definition: HookFixture.definition(template: Self.keyedTemplate)) { herald in
            let first = try await herald.sendSignedHook(body: HookFixture.event(eventID: "evt-1"), idempotencyKey: "delivery-9")
            #expect(first.status == .ok, "\(first.text)")
            let second = try await herald.sendSignedHook(body: HookFixture.event(eventID: "evt-2"), idempotencyKey: "delivery-9")
            #expect(second.idempotentReplayed == "true")
            // Without the header, evt-2 is new.
            let third = try await herald.sendSignedHook(body: HookFixture.event(eventID: "evt-2"))
            #expect(third.idempotentReplayed == nil, "\(third.text)")
            #expect(herald.inbox(HookFixture.token).count == 2)
        }
    }

    @Test("POST /v1/hooks/{name} is rate-limited per hook: 429 rateLimited with Retry-After; another hook is unaffected")
    func rateLimitedPerHook() async throws {
        var options = GuardOptions()
        options.hookRatePerSecond = 0.01
        options.hookRateBurst = 2
        try await withOrdersHook(options: options) { herald in
            try await herald.defineHook("billing", HookFixture.definition())
            for order in 1...2 {
                let reply = try await herald.sendSignedHook(body: HookFixture.event(order: "o-\(order)"))
                #expect(reply.status == .ok, "\(reply.text)")
            }
            let limited = try await herald.expectRefused(.tooManyRequests, "rateLimited", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: HookFixture.event(order: "o-3"))
            }
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
            // Unsigned junk is limited too: the bucket is spent before the signature is checked.
            let junk = try await herald.deliverHook(body: Data("{}".utf8), signature: nil)
            expectError(junk, status: .tooManyRequests, reason: "rateLimited")
            let other = try await herald.sendSignedHook("billing", body: HookFixture.event(order: "o-4"))
            #expect(other.status == .ok, "another hook's bucket was spent: \(other.text)")
        }
    }

    @Test("A push fanning out to more than hooks.maxTokensPerRequest tokens is refused: 413 tooManyTokens, nothing pushed")
    func fanOutLimit() async throws {
        var options = GuardOptions()
        options.hookMaxTokensPerRequest = 3
        var template = HookFixture.template
        template["tokens"] = "/tokens"
        try await withOrdersHook(options: options, definition: HookFixture.definition(template: template)) { herald in
            func event(tokens: Int) -> Data {
                API.encode(["type": "order.updated", "order": ["id": "o-1", "status": "late"],
                            "tokens": (0..<tokens).map { guardToken(500 + $0) }])
            }
            try await herald.expectRefused(.contentTooLarge, "tooManyTokens", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: event(tokens: 4))
            }
            let allowed = try await herald.sendSignedHook(body: event(tokens: 3))
            #expect(allowed.status == .ok, "\(allowed.text)")
            #expect(herald.pushedCount == 3)
        }
    }

    @Test("A hook whose rendered push is over APNs' 4096 bytes is refused: 422 payloadTooLarge, nothing pushed")
    func renderedPayloadTooLarge() async throws {
        try await withOrdersHook { herald in
            let body = HookFixture.event(status: String(repeating: "very ", count: 1000))
            let reply = try await herald.expectRefused(.unprocessableContent, "payloadTooLarge", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: body)
            }
            #expect(reply.json["error"]["message"].string?.contains("4096") == true, "\(reply.text)")
            // Nothing was remembered: the same event, shortened and signed anew, still pushes.
            let short = try await herald.sendSignedHook(body: HookFixture.event(status: "late"))
            #expect(short.json["results"][0]["status"].int == 200, "\(short.text)")
        }
    }
}
