import Foundation
import HeraldCrypto
import Testing

private typealias Refusal = WebhookSignature.Refusal

/// The refusal `verify` throws, or nil when it accepts.
private func refusal(header: String?, body: [UInt8], secrets: [String], now: Int,
                     tolerance: Int = WebhookSignature.defaultToleranceSeconds) -> Refusal? {
    do {
        try WebhookSignature.verify(header: header, body: body, secrets: secrets, now: now, toleranceSeconds: tolerance)
        return nil
    } catch {
        return error
    }
}

@Suite("Webhook signatures (Herald-Signature)")
struct WebhookSignatureTests {
    let secret = "whsec_test_secret_1"
    let body = Array(#"{"a":1}"#.utf8)
    let now = 1_800_000_000

    @Test("The header is t then v1, lowercase hex HMAC-SHA256 of \"<t>.<body>\" (checked against Python's hmac)")
    func signatureFormat() {
        #expect(WebhookSignature.sign(secret: secret, timestamp: now, body: body)
            == "t=1800000000,v1=bbe21f898a264d5158e84db2ed76b48b05ba97ad50a0ef2c0d7e671a3da53676")
    }

    @Test("Sign then verify round trip returns the timestamp")
    func signVerifyRoundTrip() throws {
        let header = WebhookSignature.sign(secret: secret, timestamp: now, body: body)
        #expect(try WebhookSignature.verify(header: header, body: body, secrets: [secret], now: now) == now)
        #expect(refusal(header: header, body: body, secrets: [secret], now: now) == nil)
    }

    @Test("A forged signature (well-formed hex, wrong code) is invalidSignature")
    func forgedSignature() {
        let forged = "t=\(now),v1=" + String(repeating: "ab", count: 32)
        #expect(refusal(header: forged, body: body, secrets: [secret], now: now) == .invalidSignature)
        // One flipped hex digit of a genuine code is just as wrong.
        var genuine = WebhookSignature.sign(secret: secret, timestamp: now, body: body)
        let last = genuine.removeLast()
        genuine.append(last == "0" ? "1" : "0")
        #expect(refusal(header: genuine, body: body, secrets: [secret], now: now) == .invalidSignature)
    }

    @Test("A signature made with another secret is invalidSignature")
    func wrongSecret() {
        let header = WebhookSignature.sign(secret: "whsec_someone_else", timestamp: now, body: body)
        #expect(refusal(header: header, body: body, secrets: [secret], now: now) == .invalidSignature)
        #expect(refusal(header: header, body: body, secrets: [], now: now) == .invalidSignature)
    }

    @Test("A genuine signature older than the tolerance is staleTimestamp; at the tolerance it passes")
    func staleTimestamp() {
        let old = WebhookSignature.sign(secret: secret, timestamp: now - 301, body: body)
        #expect(refusal(header: old, body: body, secrets: [secret], now: now) == .staleTimestamp)
        let edge = WebhookSignature.sign(secret: secret, timestamp: now - 300, body: body)
        #expect(refusal(header: edge, body: body, secrets: [secret], now: now) == nil)
        #expect(refusal(header: old, body: body, secrets: [secret], now: now, tolerance: 600) == nil)
    }

    @Test("A timestamp further in the future than the tolerance is staleTimestamp")
    func futureTimestamp() {
        let future = WebhookSignature.sign(secret: secret, timestamp: now + 301, body: body)
        #expect(refusal(header: future, body: body, secrets: [secret], now: now) == .staleTimestamp)
        let huge = WebhookSignature.sign(secret: secret, timestamp: Int.max, body: body)
        #expect(refusal(header: huge, body: body, secrets: [secret], now: -2) == .staleTimestamp)
    }

    @Test("Moving the timestamp of a genuine signature breaks it: t is signed")
    func timestampIsSigned() {
        let header = WebhookSignature.sign(secret: secret, timestamp: now - 1000, body: body)
        let moved = header.replacingFirst("t=\(now - 1000)", with: "t=\(now)")
        #expect(refusal(header: moved, body: body, secrets: [secret], now: now) == .invalidSignature)
    }

    @Test("A body altered after signing is invalidSignature, even by whitespace")
    func bodyAlteredAfterSigning() {
        let header = WebhookSignature.sign(secret: secret, timestamp: now, body: body)
        #expect(refusal(header: header, body: Array(#"{"a":2}"#.utf8), secrets: [secret], now: now) == .invalidSignature)
        #expect(refusal(header: header, body: Array(#"{"a": 1}"#.utf8), secrets: [secret], now: now) == .invalidSignature)
        #expect(refusal(header: header, body: [], secrets: [secret], now: now) == .invalidSignature)
    }

    @Test("Rotation: two secrets on the receiver, two v1 values from the sender, any pair may match")
    func rotationWithTwoSecretsAndTwoSignatures() throws {
        let old = "whsec_old_secret_1234", new = "whsec_new_secret_5678"
        // The sender signs with both: the header carries two v1 values.
        let both = WebhookSignature.sign(secrets: [old, new], timestamp: now, body: body)
        #expect(try WebhookSignature.Header(parsing: both).signatures.count == 2)
        #expect(refusal(header: both, body: body, secrets: [old], now: now) == nil)
        #expect(refusal(header: both, body: body, secrets: [new], now: now) == nil)
        // The receiver knows both: a header signed with either one passes.
        #expect(refusal(header: WebhookSignature.sign(secret: old, timestamp: now, body: body), body: body, secrets: [new, old], now: now) == nil)
        #expect(refusal(header: WebhookSignature.sign(secret: new, timestamp: now, body: body), body: body, secrets: [new, old], now: now) == nil)
        // A v1 that matches nothing beside one that matches: still accepted.
        let mixed = "t=\(now),v1=\(String(repeating: "00", count: 32)),v1=" + both.split(separator: "=").last!
        #expect(refusal(header: mixed, body: body, secrets: [new], now: now) == nil)
        // Neither secret known: refused.
        #expect(refusal(header: both, body: body, secrets: ["whsec_unrelated_000"], now: now) == .invalidSignature)
    }

    @Test("A missing header is missingSignature")
    func missingHeader() {
        #expect(refusal(header: nil, body: body, secrets: [secret], now: now) == .missingSignature)
    }

    @Test("Malformed headers are invalidSignatureHeader", arguments: [
        "", "garbage", "t=1800000000", "v1=" + String(repeating: "ab", count: 32),
        "t=abc,v1=" + String(repeating: "ab", count: 32),
        "t=-5,v1=" + String(repeating: "ab", count: 32),
        "t=+5,v1=" + String(repeating: "ab", count: 32),
        "t=1,t=2,v1=" + String(repeating: "ab", count: 32),
        "t=99999999999999999999999,v1=" + String(repeating: "ab", count: 32),
        "t=1800000000,v1=xyz", "t=1800000000,v1=abc",
        "t=1800000000,v1=" + String(repeating: "ab", count: 31),
        "t=1800000000,v1=" + String(repeating: "zz", count: 32),
        "t=1800000000,,v1=" + String(repeating: "ab", count: 32),
    ])
    func malformedHeader(header: String) {
        #expect(refusal(header: header, body: body, secrets: [secret], now: now) == .invalidSignatureHeader)
    }

    @Test("Spaces after commas, uppercase hex and unknown schemes are tolerated")
    func lenientParsing() {
        let genuine = WebhookSignature.sign(secret: secret, timestamp: now, body: body)
        let code = String(genuine.split(separator: "=").last!)
        #expect(refusal(header: "t=\(now), v0=legacy, v1=\(code.uppercased())", body: body, secrets: [secret], now: now) == nil)
    }

    @Test("Refusal raw values are the published reasons")
    func refusalReasons() {
        #expect(Refusal.allCases.map(\.rawValue) == ["missingSignature", "invalidSignatureHeader", "staleTimestamp", "invalidSignature"])
    }
}

private extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
