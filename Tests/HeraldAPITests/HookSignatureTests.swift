import Foundation
import HeraldCrypto
import HeraldSandbox
import Testing

// "Inbound: POST /v1/hooks/{name} with a Stripe-style HMAC-SHA256 signature over a timestamp and
// the body. Old timestamps are refused." The signature is the hook's only credential: every
// refusal is a 401 with a stable reason, pushes nothing and stores nothing.

@Suite("Signed inbound hooks: the signature")
struct HookSignatureTests {
    @Test("A correctly signed event, with no API key, pushes the templated alert to the token the body names")
    func signedEventPushes() async throws {
        try await withOrdersHook { herald in
            let reply = try await herald.sendSignedHook(body: HookFixture.event(order: "o-42", status: "on its way"))
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply.json["pushed"].bool == true)
            #expect(reply.json["filtered"].bool == false)
            #expect(reply.json["results"][0]["token"].string == HookFixture.token)
            #expect(reply.json["results"][0]["status"].int == 200, "\(reply.text)")
            let inbox = herald.inbox(HookFixture.token)
            try #require(inbox.count == 1)
            let alert = inbox[0].payload["aps"]["alert"]
            #expect(alert["title"].string == "Order o-42")
            #expect(alert["body"].string == "Your order is on its way")
            #expect(inbox[0].topic == GuardApps.alarm)
        }
    }

    @Test("A forged signature (right shape, made-up code) is refused: 401 invalidSignature")
    func forgedSignature() async throws {
        try await withOrdersHook { herald in
            let forged = "t=\(herald.now),v1=" + String(repeating: "0123456789abcdef", count: 4)
            try await herald.expectRefused(.unauthorized, "invalidSignature", hooks: [HookFixture.name]) {
                try await herald.deliverHook(body: HookFixture.event(), signature: forged)
            }
            #expect(herald.inbox(HookFixture.token).isEmpty)
        }
    }

    @Test("A body signed with a secret the hook does not have is refused: 401 invalidSignature")
    func wrongSecret() async throws {
        try await withOrdersHook { herald in
            try await herald.expectRefused(.unauthorized, "invalidSignature", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: HookFixture.event(), secret: "whsec-someone-elses-secret-000")
            }
            #expect(herald.inbox(HookFixture.token).isEmpty)
        }
    }

    @Test("A body altered after signing is refused: 401 invalidSignature",
          arguments: [
              HookFixture.event(status: "refunded"),
              HookFixture.event(token: guardToken(666)),
              HookFixture.event() + Data(" ".utf8),
              Data(String(decoding: HookFixture.event(), as: UTF8.self).replacingOccurrences(of: "{", with: "{ ").utf8),
          ])
    func alteredBody(altered: Data) async throws {
        try await withOrdersHook { herald in
            let genuine = herald.signature(HookFixture.event())
            try await herald.expectRefused(.unauthorized, "invalidSignature", hooks: [HookFixture.name]) {
                try await herald.deliverHook(body: altered, signature: genuine)
            }
            #expect(herald.pushedCount == 0)
        }
    }

    @Test("A genuine code moved onto a new timestamp is refused: 401 invalidSignature (the timestamp is signed too)")
    func timestampSwapped() async throws {
        try await withOrdersHook { herald in
            let body = HookFixture.event()
            // Captured an hour ago, then replayed with a fresh t=.
            let old = try WebhookSignature.Header(parsing: herald.signature(body, at: herald.now - 3600))
            let replayed = WebhookSignature.Header(timestamp: herald.now, signatures: old.signatures).value
            try await herald.expectRefused(.unauthorized, "invalidSignature", hooks: [HookFixture.name]) {
                try await herald.deliverHook(body: body, signature: replayed)
            }
        }
    }

    @Test("A timestamp older than the tolerance (default 300 s) is refused: 401 staleTimestamp",
          arguments: [301, 3600, 86_400 * 30])
    func staleTimestamp(age: Int) async throws {
        try await withOrdersHook { herald in
            try await herald.expectRefused(.unauthorized, "staleTimestamp", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: HookFixture.event(), at: herald.now - age)
            }
        }
    }

    @Test("A timestamp further ahead than the tolerance is refused too: 401 staleTimestamp",
          arguments: [301, 3600, 86_400 * 365])
    func futureTimestamp(ahead: Int) async throws {
        try await withOrdersHook { herald in
            try await herald.expectRefused(.unauthorized, "staleTimestamp", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: HookFixture.event(), at: herald.now + ahead)
            }
        }
    }

    @Test("Within the tolerance, either side of now, a signature is accepted", arguments: [-300, -1, 0, 1, 300])
    func withinTolerance(offset: Int) async throws {
        try await withOrdersHook { herald in
            let reply = try await herald.sendSignedHook(body: HookFixture.event(), at: herald.now + offset)
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(herald.inbox(HookFixture.token).count == 1)
        }
    }

    @Test("A hook's toleranceSeconds replaces the server's hooks.toleranceSeconds")
    func perHookTolerance() async throws {
        var options = GuardOptions()
        options.hookToleranceSeconds = 10
        try await withOrdersHook(options: options, definition: HookFixture.definition(toleranceSeconds: 60)) { herald in
            // Allowed by the hook's 60 s although past the server's 10 s.
            let accepted = try await herald.sendSignedHook(body: HookFixture.event(order: "o-1"), at: herald.now - 30)
            #expect(accepted.status == .ok, "\(accepted.text)")
            try await herald.expectRefused(.unauthorized, "staleTimestamp", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: HookFixture.event(order: "o-2"), at: herald.now - 61)
            }
            // A hook without its own tolerance gets the server's 10 s.
            try await herald.defineHook("strict", HookFixture.definition())
            try await herald.expectRefused(.unauthorized, "staleTimestamp", hooks: [HookFixture.name, "strict"]) {
                try await herald.sendSignedHook("strict", body: HookFixture.event(order: "o-3"), at: herald.now - 11)
            }
            #expect(herald.inbox(HookFixture.token).count == 1)
        }
    }

    @Test("Verification uses the server's clock: a signature from before a clock jump goes stale")
    func serverClockDecides() async throws {
        try await withOrdersHook { herald in
            let body = HookFixture.event()
            let signed = herald.signature(body)
            herald.clock.advance(to: herald.clock.now().addingTimeInterval(301))
            try await herald.expectRefused(.unauthorized, "staleTimestamp", hooks: [HookFixture.name]) {
                try await herald.deliverHook(body: body, signature: signed)
            }
        }
    }

    @Test("A missing or malformed Herald-Signature header is refused: 401 with the reason",
          arguments: [
              (nil, "missingSignature"),
              ("", "invalidSignatureHeader"),
              ("v1=" + String(repeating: "ab", count: 32), "invalidSignatureHeader"),
              ("t=1793491200", "invalidSignatureHeader"),
              ("t=-5,v1=" + String(repeating: "ab", count: 32), "invalidSignatureHeader"),
              ("t=1793491200,v1=abc", "invalidSignatureHeader"),
              ("t=1793491200,v1=" + String(repeating: "zz", count: 32), "invalidSignatureHeader"),
              ("sha256=" + String(repeating: "ab", count: 32), "invalidSignatureHeader"),
          ] as [(String?, String)])
    func malformedHeader(header: String?, reason: String) async throws {
        try await withOrdersHook { herald in
            try await herald.expectRefused(.unauthorized, reason, hooks: [HookFixture.name]) {
                try await herald.deliverHook(body: HookFixture.event(), signature: header)
            }
        }
    }

    @Test("An API key does not stand in for the signature: even the admin key gets 401 missingSignature")
    func apiKeyIsNotASignature() async throws {
        try await withOrdersHook { herald in
            try await herald.expectRefused(.unauthorized, "missingSignature", hooks: [HookFixture.name]) {
                try await herald.deliverHook(body: HookFixture.event(), signature: nil, apiKey: GuardKeys.admin)
            }
        }
    }

    @Test("Secret rotation: with two secrets, a body signed with either (or both) is accepted; once the old one is removed it is refused")
    func secretRotation() async throws {
        try await withOrdersHook { herald in
            let rotating = HookFixture.definition(secrets: [HookFixture.secret, HookFixture.rotatedSecret])
            let updated = try await herald.put("/v1/hooks/\(HookFixture.name)", json: rotating)
            #expect(updated.status == .ok, "replacing a hook answers 200: \(updated.text)")
            #expect(updated.json["secrets"].int == 2, "the count is shown, never the secrets: \(updated.text)")
            #expect(!updated.text.contains(HookFixture.secret) && !updated.text.contains(HookFixture.rotatedSecret))

            let old = try await herald.sendSignedHook(body: HookFixture.event(order: "o-old"), secret: HookFixture.secret)
            #expect(old.status == .ok, "\(old.text)")
            let new = try await herald.sendSignedHook(body: HookFixture.event(order: "o-new"), secret: HookFixture.rotatedSecret)
            #expect(new.status == .ok, "\(new.text)")
            let bothBody = HookFixture.event(order: "o-both")
            let both = WebhookSignature.sign(secrets: [HookFixture.secret, HookFixture.rotatedSecret], timestamp: herald.now,
                                             body: Array(bothBody))
            let bothReply = try await herald.deliverHook(body: bothBody, signature: both)
            #expect(bothReply.status == .ok, "\(bothReply.text)")
            #expect(herald.inbox(HookFixture.token).count == 3)

            try await herald.defineHook(HookFixture.name, HookFixture.definition(secrets: [HookFixture.rotatedSecret]))
            try await herald.expectRefused(.unauthorized, "invalidSignature", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: HookFixture.event(order: "o-late"), secret: HookFixture.secret)
            }
            let still = try await herald.sendSignedHook(body: HookFixture.event(order: "o-after"), secret: HookFixture.rotatedSecret)
            #expect(still.status == .ok, "\(still.text)")
            #expect(herald.inbox(HookFixture.token).count == 4)
        }
    }

    @Test("A hook that does not exist answers 404 hookNotFound and pushes nothing")
    func unknownHook() async throws {
        try await withOrdersHook { herald in
            try await herald.expectRefused(.notFound, "hookNotFound", hooks: [HookFixture.name, "invoices"]) {
                try await herald.sendSignedHook("invoices", body: HookFixture.event())
            }
        }
    }
}
