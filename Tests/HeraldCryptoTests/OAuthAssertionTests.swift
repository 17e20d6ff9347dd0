import Foundation
import HeraldCrypto
import Testing

private typealias Refusal = OAuthAssertion.Refusal

@Suite("OAuth assertions (Google service-account JWT)")
struct OAuthAssertionTests {
    static let key = RS256KeyTests.key
    static let publicKey = try! RS256Key(pem: key.publicKeyPEM())
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let email = "herald@example-project.iam.gserviceaccount.com"
    let scope = "https://www.googleapis.com/auth/firebase.messaging"
    let tokenURI = "https://oauth2.googleapis.com/token"

    private func assertion(lifetime: TimeInterval = 3600, keyID: String? = "0123abcd") throws -> String {
        try OAuthAssertion.sign(clientEmail: email, scope: scope, audience: tokenURI, issuedAt: now,
                                lifetime: lifetime, keyID: keyID, key: Self.key)
    }

    /// The refusal `verify` throws, or nil when it accepts.
    private func refusal(_ jwt: String, key: RS256Key = publicKey, audience: String? = nil, at time: Date? = nil) -> Refusal? {
        do {
            _ = try OAuthAssertion.verify(jwt, key: key, expectedAudience: audience ?? tokenURI, now: time ?? now)
            return nil
        } catch {
            return error
        }
    }

    /// A JWT with these exact header and claims texts, signed by the test key.
    private func signed(header: String = #"{"alg":"RS256","typ":"JWT"}"#, claims: String) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try Self.key.sign(Array(input.utf8)))
    }

    @Test("Header alg RS256, typ JWT, kid; claims iss, scope, aud, iat, exp = iat + lifetime, in that order")
    func shape() throws {
        let parts = try assertion().split(separator: ".")
        #expect(parts.count == 3)
        #expect(String(decoding: Base64URL.decode(parts[0])!, as: UTF8.self) == #"{"alg":"RS256","typ":"JWT","kid":"0123abcd"}"#)
        #expect(String(decoding: Base64URL.decode(parts[1])!, as: UTF8.self)
            == #"{"iss":"herald@example-project.iam.gserviceaccount.com","scope":"https://www.googleapis.com/auth/firebase.messaging","aud":"https://oauth2.googleapis.com/token","iat":1800000000,"exp":1800003600}"#)
        #expect(Base64URL.decode(parts[2])?.count == 256)
        let noKid = try assertion(keyID: nil).split(separator: ".")
        #expect(String(decoding: Base64URL.decode(noKid[0])!, as: UTF8.self) == #"{"alg":"RS256","typ":"JWT"}"#)
    }

    @Test("Sign then verify with the public key gives back the claims")
    func roundTrip() throws {
        let claims = try OAuthAssertion.verify(try assertion(lifetime: 1800), key: Self.publicKey, expectedAudience: tokenURI,
                                               now: now.addingTimeInterval(60))
        #expect(claims == OAuthAssertion.Claims(issuer: email, scope: scope, audience: tokenURI, issuedAt: now,
                                                expiresAt: now.addingTimeInterval(1800), keyID: "0123abcd"))
        #expect(refusal(try assertion(keyID: nil)) == nil)
    }

    @Test("Another key, a changed claim, an expired assertion and a wrong audience are refused")
    func refusals() throws {
        let jwt = try assertion()
        let otherKey = try RS256Key(pem: try RS256Key.generate().publicKeyPEM())
        #expect(refusal(jwt, key: otherKey) == .invalidSignature)
        let parts = jwt.split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Array(#"{"iss":"x","scope":"y","aud":"https://oauth2.googleapis.com/token","iat":1800000000,"exp":1800003600}"#.utf8))
        #expect(refusal("\(parts[0]).\(forged).\(parts[2])") == .invalidSignature)
        #expect(refusal(jwt, at: now.addingTimeInterval(3600)) == .expired)
        #expect(refusal(jwt, at: now.addingTimeInterval(3599)) == nil)
        #expect(refusal(jwt, audience: "https://www.googleapis.com/oauth2/v4/token") == .wrongAudience)
        #expect(refusal("a.b.c") == .malformed)
        #expect(refusal(try signed(header: #"{"alg":"HS256","typ":"JWT"}"#, claims: #"{"iss":"x","scope":"y","aud":"https://oauth2.googleapis.com/token","iat":1800000000,"exp":1800003600}"#)) == .malformed)
    }

    @Test("Lifetimes over an hour, or not positive, and empty scopes are refused; sign refuses them too")
    func lifetimeAndScope() throws {
        let aud = tokenURI
        #expect(refusal(try signed(claims: #"{"iss":"x","scope":"s","aud":"\#(aud)","iat":1800000000,"exp":1800003601}"#)) == .invalidLifetime)
        #expect(refusal(try signed(claims: #"{"iss":"x","scope":"s","aud":"\#(aud)","iat":1800000100,"exp":1800000100}"#)) == .invalidLifetime)
        #expect(refusal(try signed(claims: #"{"iss":"x","aud":"\#(aud)","iat":1800000000,"exp":1800003600}"#)) == .missingScope)
        #expect(refusal(try signed(claims: #"{"iss":"x","scope":" ","aud":"\#(aud)","iat":1800000000,"exp":1800003600}"#)) == .missingScope)
        #expect(throws: Refusal.invalidLifetime) { try assertion(lifetime: 3601) }
        #expect(throws: Refusal.invalidLifetime) { try assertion(lifetime: 0) }
    }
}
