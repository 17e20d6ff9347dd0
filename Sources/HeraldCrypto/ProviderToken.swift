import Foundation

/// An APNs provider authentication token: a JWT signed with ES256.
///
/// Header `{"alg":"ES256","kid":<key id>}`, claims `{"iss":<team id>,"iat":<seconds>}`.
public struct ProviderToken: Hashable, Sendable {
    public var keyID: String
    public var teamID: String
    public var issuedAt: Int
    /// The compact serialization sent as `authorization: bearer <jwt>`.
    public var jwt: String

    /// Signs a new token issued at `issuedAt`.
    public static func sign(keyID: String, teamID: String, issuedAt: Date, key: ES256Key) throws -> ProviderToken {
        let seconds = Int(issuedAt.timeIntervalSince1970)
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"\#(teamID)","iat":\#(seconds)}"#.utf8))
        let signingInput = "\(header).\(claims)"
        let signature = try key.sign(Array(signingInput.utf8))
        return ProviderToken(keyID: keyID, teamID: teamID, issuedAt: seconds,
                             jwt: "\(signingInput).\(Base64URL.encode(signature))")
    }

    /// Why a presented token is refused, in APNs' own reasons.
    public enum Refusal: String, Error, Sendable {
        case missingProviderToken = "MissingProviderToken"
        case invalidProviderToken = "InvalidProviderToken"
        case expiredProviderToken = "ExpiredProviderToken"
    }

    /// Reads and verifies a token as APNs does: ES256 header, known key id, valid signature,
    /// and an `iat` no older than `maximumAge` (APNs refuses tokens older than an hour).
    public static func verify(_ jwt: String, keys: [String: ES256Key], now: Date,
                              maximumAge: TimeInterval = 3600) throws(Refusal) -> ProviderToken {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any],
              header["alg"] as? String == "ES256",
              let keyID = header["kid"] as? String, let teamID = claims["iss"] as? String,
              let issuedAt = (claims["iat"] as? NSNumber)?.intValue
        else { throw .invalidProviderToken }
        guard let key = keys[keyID],
              key.verify(signature: signature, for: Array("\(parts[0]).\(parts[1])".utf8))
        else { throw .invalidProviderToken }
        let age = now.timeIntervalSince1970 - Double(issuedAt)
        guard age <= maximumAge else { throw .expiredProviderToken }
        return ProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, jwt: jwt)
    }
}
