import Foundation

/// A VAPID token (RFC 8292): the JWT, signed ES256 with the application server's key, that
/// identifies the sender of a Web Push request.
///
/// Header `{"typ":"JWT","alg":"ES256"}`, claims `{"aud":<push service origin>,"exp":<seconds>,
/// "sub":<mailto: or https: contact>}`; sent as `Authorization: vapid t=<jwt>, k=<public key>`,
/// `k` being the base64url uncompressed point that the subscription was made with.
public struct VAPIDToken: Hashable, Sendable {
    /// The longest lifetime RFC 8292 §2 allows: `exp` no more than 24 hours ahead.
    public static let maximumLifetime: TimeInterval = 24 * 60 * 60

    public var jwt: String
    /// The push service's origin, e.g. `https://fcm.googleapis.com`.
    public var audience: String
    /// The contact for the sender, a `mailto:` or `https:` URI.
    public var subject: String
    /// `exp`, in whole seconds.
    public var expiresAt: Date
    /// The signer's public key as a 65-byte uncompressed point, the `k` parameter.
    public var publicKey: [UInt8]

    /// The `Authorization` header value: `vapid t=<jwt>, k=<base64url public key>`.
    public var authorizationHeader: String { "vapid t=\(jwt), k=\(Base64URL.encode(publicKey))" }

    /// Signs a token for one push service.
    ///
    /// A token can be reused for every request to that origin until shortly before it expires.
    ///
    /// ```swift
    /// let token = try VAPIDToken.sign(audience: "https://fcm.googleapis.com", subject: "mailto:ops@example.com",
    ///                                 expiresAt: Date().addingTimeInterval(12 * 3600), key: vapidKey)
    /// request.headers["Authorization"] = token.authorizationHeader
    /// ```
    ///
    /// - Parameters:
    ///   - audience: the origin of the subscription's endpoint (scheme, host, port if not default).
    ///   - subject: a `mailto:` or `https:` contact for the push service's operator.
    ///   - expiresAt: at most 24 hours from the time of the request; truncated to whole seconds.
    ///   - key: the application server's private P-256 key.
    public static func sign(audience: String, subject: String, expiresAt: Date, key: ES256Key) throws -> VAPIDToken {
        let seconds = Int(expiresAt.timeIntervalSince1970)
        let signingInput = JWT.signingInput(
            header: #"{"typ":"JWT","alg":"ES256"}"#,
            claims: #"{"aud":\#(JWT.quoted(audience)),"exp":\#(seconds),"sub":\#(JWT.quoted(subject))}"#)
        let signature = try key.sign(Array(signingInput.utf8))
        return VAPIDToken(jwt: "\(signingInput).\(Base64URL.encode(signature))", audience: audience, subject: subject,
                          expiresAt: Date(timeIntervalSince1970: Double(seconds)), publicKey: try key.publicKeyPoint)
    }

    /// Why a push request's VAPID authorization is refused. RFC 8292 §4.2: 401 when it is
    /// absent, 403 when it is invalid (see ``statusCode``).
    public enum Refusal: String, Error, Sendable, CaseIterable {
        /// No `Authorization` header, or one of another scheme.
        case missingAuthorization
        /// A `vapid` header without both `t` and `k`, or with either repeated.
        case malformedAuthorization
        /// `k` is not a base64url uncompressed P-256 point.
        case invalidKey
        /// `t` is not a compact JWT with header `alg` ES256 (and `typ` JWT if present) and an `exp`.
        case malformedToken
        /// The signature does not verify with `k`.
        case invalidSignature
        /// `aud` is not this push service's origin.
        case wrongAudience
        /// `exp` is not in the future.
        case expired
        /// `exp` is more than 24 hours ahead.
        case expiryTooFar
        /// `sub` is missing or neither a `mailto:` nor an `https:` URI.
        case invalidSubject

        /// The HTTP status a push service answers with.
        public var statusCode: Int { self == .missingAuthorization ? 401 : 403 }
    }

    /// Checks a request's `Authorization` header as a push service does.
    ///
    /// The signature is checked before any claim, so a claim-based refusal is only ever said of a
    /// genuine token. Whether `k` is the key the subscription was made with is the caller's check
    /// (compare ``publicKey``; a mismatch is a 403).
    ///
    /// ```swift
    /// let token = try VAPIDToken.verify(authorization: request.headers["Authorization"],
    ///                                   expectedAudience: "https://push.example.net", now: Date())
    /// ```
    ///
    /// - Parameters:
    ///   - header: the `Authorization` value, nil when absent.
    ///   - expectedAudience: this push service's origin; `aud` must equal it exactly.
    ///   - now: the current time.
    public static func verify(authorization header: String?, expectedAudience: String, now: Date) throws(Refusal) -> VAPIDToken {
        let (jwt, encodedKey) = try parse(authorization: header)
        guard let publicKey = Base64URL.decode(encodedKey), let key = try? ES256Key(publicPoint: publicKey) else {
            throw .invalidKey
        }
        guard let parsed = JWT.Parsed(jwt), parsed.header["alg"] as? String == "ES256",
              (parsed.header["typ"] as? String).map({ $0.uppercased() == "JWT" }) ?? true,
              let expiry = parsed.seconds("exp")
        else { throw .malformedToken }
        guard key.verify(signature: parsed.signature, for: parsed.signingInput) else { throw .invalidSignature }
        guard let audience = parsed.claims["aud"] as? String, audience == expectedAudience else { throw .wrongAudience }
        let remaining = Double(expiry) - now.timeIntervalSince1970
        guard remaining > 0 else { throw .expired }
        guard remaining <= maximumLifetime else { throw .expiryTooFar }
        guard let subject = parsed.claims["sub"] as? String,
              subject.lowercased().hasPrefix("mailto:") || subject.lowercased().hasPrefix("https:")
        else { throw .invalidSubject }
        return VAPIDToken(jwt: String(jwt), audience: audience, subject: subject,
                          expiresAt: Date(timeIntervalSince1970: Double(expiry)), publicKey: publicKey)
    }

    /// `vapid t=<jwt>, k=<key>` → (jwt, key). The scheme is case-insensitive (RFC 9110 §11.1),
    /// parameters may come in any order, and values may be quoted.
    private static func parse(authorization header: String?) throws(Refusal) -> (jwt: Substring, key: Substring) {
        guard let header else { throw .missingAuthorization }
        let text = header.drop { $0 == " " || $0 == "\t" }
        guard let space = text.firstIndex(where: { $0 == " " || $0 == "\t" }),
              text[..<space].lowercased() == "vapid"
        else { throw .missingAuthorization }
        var jwt: Substring?
        var key: Substring?
        for item in text[space...].split(separator: ",") {
            guard let equals = item.firstIndex(of: "=") else { throw .malformedAuthorization }
            let name = item[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)[...]
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            switch name {
            case "t":
                guard jwt == nil else { throw .malformedAuthorization }
                jwt = value
            case "k":
                guard key == nil else { throw .malformedAuthorization }
                key = value
            default:
                continue
            }
        }
        guard let jwt, let key, !jwt.isEmpty, !key.isEmpty else { throw .malformedAuthorization }
        return (jwt, key)
    }
}
