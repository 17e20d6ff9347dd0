import Foundation

/// Google's service-account JWT bearer grant (RFC 7523; Google's "OAuth 2.0 for Server to Server
/// Applications"): a JWT signed RS256 with the account's key, posted to the token URI as
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>` for an access token.
/// FCM's HTTP v1 API wants the scope `https://www.googleapis.com/auth/firebase.messaging`.
///
/// Header `{"alg":"RS256","typ":"JWT"[,"kid":<private_key_id>]}`, claims `{"iss":<client_email>,
/// "scope":<scopes>,"aud":<token_uri>,"iat":<seconds>,"exp":<seconds>}`.
public enum OAuthAssertion {
    /// The longest lifetime Google accepts: `exp` at most an hour after `iat`.
    public static let maximumLifetime: TimeInterval = 3600

    /// What a verified assertion says.
    public struct Claims: Hashable, Sendable {
        /// `iss`: the service account's `client_email`.
        public var issuer: String
        /// `scope`: space-separated scopes.
        public var scope: String
        /// `aud`: the token URI.
        public var audience: String
        public var issuedAt: Date
        public var expiresAt: Date
        /// The header's `kid`: the service account key's `private_key_id`, when sent.
        public var keyID: String?

        public init(issuer: String, scope: String, audience: String, issuedAt: Date, expiresAt: Date, keyID: String?) {
            self.issuer = issuer
            self.scope = scope
            self.audience = audience
            self.issuedAt = issuedAt
            self.expiresAt = expiresAt
            self.keyID = keyID
        }
    }

    /// Why an assertion is refused (the sandbox's token endpoint answers `invalid_grant`).
    public enum Refusal: String, Error, Sendable, CaseIterable {
        /// Not a compact JWT with header `alg` RS256 and string `iss`, `aud`, numeric `iat`, `exp`.
        case malformed
        /// The signature does not verify with the account's key.
        case invalidSignature
        /// `aud` is not the token URI.
        case wrongAudience
        /// `exp` is not in the future.
        case expired
        /// `exp` is not after `iat`, or more than an hour after it.
        case invalidLifetime
        /// `scope` is missing or empty.
        case missingScope
    }

    /// Signs an assertion.
    ///
    /// ```swift
    /// let assertion = try OAuthAssertion.sign(
    ///     clientEmail: account.clientEmail, scope: "https://www.googleapis.com/auth/firebase.messaging",
    ///     audience: account.tokenURI, issuedAt: Date(), keyID: account.privateKeyID, key: accountKey)
    /// ```
    ///
    /// - Parameters:
    ///   - clientEmail: the service account's `client_email`, the `iss`.
    ///   - scope: space-separated scopes.
    ///   - tokenURI: the account's `token_uri`, usually `https://oauth2.googleapis.com/token`.
    ///   - issuedAt: `iat`; truncated to whole seconds.
    ///   - lifetime: `exp` − `iat`, more than 0 and at most ``maximumLifetime``.
    ///   - keyID: the account's `private_key_id`, sent as the header's `kid`; nil to leave it out.
    ///   - key: the account's private key.
    /// - Throws: ``Refusal/invalidLifetime`` for a lifetime out of range, ``OpenSSLError`` when
    ///   signing fails.
    public static func sign(clientEmail: String, scope: String, audience tokenURI: String, issuedAt: Date,
                            lifetime: TimeInterval = maximumLifetime, keyID: String? = nil, key: RS256Key) throws -> String {
        guard lifetime >= 1, lifetime <= maximumLifetime else { throw Refusal.invalidLifetime }
        let issued = Int(issuedAt.timeIntervalSince1970)
        let expires = issued + Int(lifetime)
        let header = keyID.map { #"{"alg":"RS256","typ":"JWT","kid":\#(JWT.quoted($0))}"# } ?? #"{"alg":"RS256","typ":"JWT"}"#
        let claims = #"{"iss":\#(JWT.quoted(clientEmail)),"scope":\#(JWT.quoted(scope)),"aud":\#(JWT.quoted(tokenURI)),"iat":\#(issued),"exp":\#(expires)}"#
        let signingInput = JWT.signingInput(header: header, claims: claims)
        return "\(signingInput).\(Base64URL.encode(try key.sign(Array(signingInput.utf8))))"
    }

    /// Checks an assertion as Google's token endpoint does: signature, `aud`, `exp` in the future,
    /// a lifetime of at most an hour, and a scope. The signature is checked first, so a
    /// claim-based refusal is only ever said of a genuine assertion.
    ///
    /// ```swift
    /// let claims = try OAuthAssertion.verify(assertion, key: accountPublicKey,
    ///                                        expectedAudience: "https://oauth2.googleapis.com/token", now: Date())
    /// ```
    public static func verify(_ jwt: String, key: RS256Key, expectedAudience: String, now: Date) throws(Refusal) -> Claims {
        guard let parsed = JWT.Parsed(jwt), parsed.header["alg"] as? String == "RS256",
              let issuer = parsed.claims["iss"] as? String, let audience = parsed.claims["aud"] as? String,
              let issued = parsed.seconds("iat"), let expires = parsed.seconds("exp")
        else { throw .malformed }
        guard key.verify(signature: parsed.signature, for: parsed.signingInput) else { throw .invalidSignature }
        guard audience == expectedAudience else { throw .wrongAudience }
        guard Double(expires) > now.timeIntervalSince1970 else { throw .expired }
        guard expires > issued, Double(expires - issued) <= maximumLifetime else { throw .invalidLifetime }
        guard let scope = parsed.claims["scope"] as? String, !scope.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .missingScope
        }
        return Claims(issuer: issuer, scope: scope, audience: audience, issuedAt: Date(timeIntervalSince1970: Double(issued)),
                      expiresAt: Date(timeIntervalSince1970: Double(expires)), keyID: parsed.header["kid"] as? String)
    }
}
