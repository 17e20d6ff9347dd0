import Foundation
import HeraldCrypto
import Testing

private typealias Refusal = VAPIDToken.Refusal

@Suite("VAPID tokens (RFC 8292)")
struct VAPIDTokenTests {
    static let key = try! ES256Key.generate()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let origin = "https://fcm.googleapis.com"

    private func token(audience: String? = nil, subject: String = "mailto:ops@example.com",
                       expiresIn: TimeInterval = 12 * 3600, key: ES256Key = key) throws -> VAPIDToken {
        try VAPIDToken.sign(audience: audience ?? origin, subject: subject, expiresAt: now.addingTimeInterval(expiresIn), key: key)
    }

    /// The refusal `verify` throws, or nil when it accepts.
    private func refusal(_ header: String?, audience: String? = nil, at time: Date? = nil) -> Refusal? {
        do {
            _ = try VAPIDToken.verify(authorization: header, expectedAudience: audience ?? origin, now: time ?? now)
            return nil
        } catch {
            return error
        }
    }

    @Test("The token has header typ JWT / alg ES256, claims aud, exp, sub, and the header carries t and k")
    func shape() throws {
        let token = try token()
        let parts = token.jwt.split(separator: ".")
        #expect(parts.count == 3)
        #expect(String(decoding: Base64URL.decode(parts[0])!, as: UTF8.self) == #"{"typ":"JWT","alg":"ES256"}"#)
        #expect(String(decoding: Base64URL.decode(parts[1])!, as: UTF8.self)
            == #"{"aud":"https://fcm.googleapis.com","exp":1800043200,"sub":"mailto:ops@example.com"}"#)
        #expect(Base64URL.decode(parts[2])?.count == 64)
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_800_043_200))
        #expect(token.publicKey == (try Self.key.publicKeyPoint))
        #expect(token.authorizationHeader == "vapid t=\(token.jwt), k=\(Base64URL.encode(try Self.key.publicKeyPoint))")
    }

    @Test("Sign then verify gives back the claims, whatever the scheme's case or the parameters' order")
    func roundTrip() throws {
        let token = try token()
        let verified = try VAPIDToken.verify(authorization: token.authorizationHeader, expectedAudience: origin, now: now)
        #expect(verified == token)
        let k = Base64URL.encode(token.publicKey)
        #expect(refusal("VAPID k=\(k),t=\(token.jwt)") == nil)
        #expect(refusal(#"vapid t="\#(token.jwt)", k="\#(k)""#) == nil)
        // A subject with characters JSON must escape survives the trip.
        let odd = try self.token(subject: #"mailto:"ops\team"@example.com"#)
        #expect(try VAPIDToken.verify(authorization: odd.authorizationHeader, expectedAudience: origin, now: now).subject
            == #"mailto:"ops\team"@example.com"#)
        #expect(refusal(try self.token(subject: "https://example.com/contact").authorizationHeader) == nil)
    }

    @Test("Expired, wrong audience, more than 24 hours ahead, and bad subjects are refused with 403")
    func claimRefusals() throws {
        let header = try token().authorizationHeader
        #expect(refusal(header, at: now.addingTimeInterval(12 * 3600)) == .expired)
        #expect(refusal(header, at: now.addingTimeInterval(13 * 3600)) == .expired)
        #expect(refusal(header, audience: "https://updates.push.services.mozilla.com") == .wrongAudience)
        #expect(refusal(header, audience: "https://fcm.googleapis.com/") == .wrongAudience)
        #expect(refusal(try token(expiresIn: 24 * 3600).authorizationHeader) == nil)
        #expect(refusal(try token(expiresIn: 24 * 3600 + 1).authorizationHeader) == .expiryTooFar)
        #expect(refusal(try token(expiresIn: 25 * 3600).authorizationHeader) == .expiryTooFar)
        #expect(refusal(try token(subject: "ops@example.com").authorizationHeader) == .invalidSubject)
        #expect(refusal(try token(subject: "http://example.com").authorizationHeader) == .invalidSubject)
        #expect(Refusal.expired.statusCode == 403)
    }

    @Test("A tampered token, or one checked against another key, fails its signature")
    func tampered() throws {
        let token = try token()
        let parts = token.jwt.split(separator: ".").map(String.init)
        let k = Base64URL.encode(token.publicKey)
        // Claims changed to another audience, signature kept.
        let forgedClaims = Base64URL.encode(Array(#"{"aud":"https://evil.example","exp":1800043200,"sub":"mailto:ops@example.com"}"#.utf8))
        #expect(refusal("vapid t=\(parts[0]).\(forgedClaims).\(parts[2]), k=\(k)", audience: "https://evil.example") == .invalidSignature)
        var signature = Base64URL.decode(parts[2])!
        signature[10] ^= 1
        #expect(refusal("vapid t=\(parts[0]).\(parts[1]).\(Base64URL.encode(signature)), k=\(k)") == .invalidSignature)
        let otherKey = Base64URL.encode(try ES256Key.generate().publicKeyPoint)
        #expect(refusal("vapid t=\(token.jwt), k=\(otherKey)") == .invalidSignature)
        #expect(Refusal.invalidSignature.statusCode == 403)
    }

    @Test("Missing, foreign-scheme and malformed headers are refused: 401 when absent, 403 when invalid")
    func malformed() throws {
        let token = try token()
        let k = Base64URL.encode(token.publicKey)
        #expect(refusal(nil) == .missingAuthorization)
        #expect(refusal("") == .missingAuthorization)
        #expect(refusal("Bearer \(token.jwt)") == .missingAuthorization)
        #expect(Refusal.missingAuthorization.statusCode == 401)
        #expect(refusal("vapid t=\(token.jwt)") == .malformedAuthorization)
        #expect(refusal("vapid t=\(token.jwt), k=\(k), t=\(token.jwt)") == .malformedAuthorization)
        #expect(refusal("vapid \(token.jwt)") == .malformedAuthorization)
        #expect(refusal("vapid t=\(token.jwt), k=AAAA") == .invalidKey)
        #expect(refusal("vapid t=not.a.jwt, k=\(k)") == .malformedToken)
        let hs256 = Base64URL.encode(Array(#"{"typ":"JWT","alg":"HS256"}"#.utf8))
        let rest = token.jwt.split(separator: ".").dropFirst().joined(separator: ".")
        #expect(refusal("vapid t=\(hs256).\(rest), k=\(k)") == .malformedToken)
    }
}
