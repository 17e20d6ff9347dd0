import Foundation
import HeraldCrypto
import Testing

/// The dev APNs key pair committed under Certs/.
enum DevKeys {
    static let certs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Certs")
    static func privateKey() throws -> ES256Key { try ES256Key(contentsOfFile: certs.appendingPathComponent("dev-apns-key.p8").path) }
    static func publicKey() throws -> ES256Key { try ES256Key(contentsOfFile: certs.appendingPathComponent("dev-apns-key.pub.pem").path) }
}

@Suite("Provider tokens (ES256 JWT)")
struct ProviderTokenTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("An ES256 signature is 64 raw bytes, R then S, and verifies with the public key")
    func rawSignature() throws {
        let signature = try DevKeys.privateKey().sign(Array("hello".utf8))
        #expect(signature.count == 64)
        #expect(try DevKeys.publicKey().verify(signature: signature, for: Array("hello".utf8)))
        #expect(try !DevKeys.publicKey().verify(signature: signature, for: Array("hellO".utf8)))
    }

    @Test("A token has header alg ES256 and kid, claims iss and iat in seconds")
    func tokenShape() throws {
        let token = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: now, key: DevKeys.privateKey())
        let parts = token.jwt.split(separator: ".")
        #expect(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[0])!)) as? [String: Any]
        let claims = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[1])!)) as? [String: Any]
        #expect(header?["alg"] as? String == "ES256" && header?["kid"] as? String == "ABC123DEFG")
        #expect(claims?["iss"] as? String == "TEAM123456" && claims?["iat"] as? Int == 1_800_000_000)
        #expect(Base64URL.decode(parts[2])?.count == 64)
        #expect(!token.jwt.contains("=") && !token.jwt.contains("+") && !token.jwt.contains("/"))
    }

    @Test("A token verifies with the trusted key, and is refused when forged, unknown or older than an hour")
    func verification() throws {
        let keys = ["ABC123DEFG": try DevKeys.publicKey()]
        let token = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: now, key: DevKeys.privateKey())
        #expect(try ProviderToken.verify(token.jwt, keys: keys, now: now.addingTimeInterval(60)).teamID == "TEAM123456")
        #expect(throws: ProviderToken.Refusal.expiredProviderToken) {
            try ProviderToken.verify(token.jwt, keys: keys, now: now.addingTimeInterval(3601))
        }
        #expect(throws: ProviderToken.Refusal.invalidProviderToken) {
            try ProviderToken.verify(token.jwt, keys: [:], now: now)
        }
        let forged = token.jwt.dropLast(4) + "AAAA"
        #expect(throws: ProviderToken.Refusal.invalidProviderToken) {
            try ProviderToken.verify(String(forged), keys: keys, now: now)
        }
        #expect(throws: ProviderToken.Refusal.invalidProviderToken) {
            try ProviderToken.verify("not.a.jwt", keys: keys, now: now)
        }
    }

    @Test("A key that is not EC P-256 is refused")
    func wrongKeyType() throws {
        let rsa = try String(contentsOf: DevKeys.certs.appendingPathComponent("dev-ca.key"), encoding: .utf8)
        #expect(throws: OpenSSLError.self) { try ES256Key(pem: rsa) }
    }
}

@Suite("Provider token renewal")
struct ProviderTokenSourceTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func source(renewAt minutes: Double = 50) throws -> ProviderTokenSource {
        ProviderTokenSource(key: try DevKeys.privateKey(), keyID: "ABC123DEFG", teamID: "TEAM123456", renewAt: minutes * 60)
    }

    @Test("The token is cached and reused until it reaches its renewal age")
    func cachedUntilRenewalAge() throws {
        let tokens = try source()
        let first = try tokens.token(now: start)
        #expect(try tokens.token(now: start.addingTimeInterval(49 * 60)) == first)
        #expect(try tokens.token(now: start.addingTimeInterval(50 * 60)) != first)
        #expect(tokens.renewals == 2)
    }

    @Test("The renewal age is kept between 20 and 60 minutes whatever is configured")
    func renewalAgeClamped() throws {
        let eager = try source(renewAt: 1)
        let first = try eager.token(now: start)
        #expect(try eager.token(now: start.addingTimeInterval(19 * 60)) == first)
        let lazy = try source(renewAt: 600)
        let token = try lazy.token(now: start)
        #expect(try lazy.token(now: start.addingTimeInterval(59 * 60 + 30)) != token)
    }

    @Test("ExpiredProviderToken for a token younger than 20 minutes does not renew it")
    func youngTokenNotRenewed() throws {
        let tokens = try source()
        let first = try tokens.token(now: start)
        #expect(!tokens.expired(first, now: start.addingTimeInterval(5 * 60)))
        #expect(try tokens.token(now: start.addingTimeInterval(5 * 60)) == first)
        #expect(tokens.renewals == 1)
    }

    @Test("ExpiredProviderToken for a token at least 20 minutes old renews it once, however many connections report it")
    func oldTokenRenewedOnce() throws {
        let tokens = try source()
        let first = try tokens.token(now: start)
        let later = start.addingTimeInterval(25 * 60)
        #expect(tokens.expired(first, now: later))
        let second = try tokens.token(now: later)
        #expect(tokens.expired(first, now: later))  // a second connection reporting the old token
        #expect(try tokens.token(now: later) == second)
        #expect(tokens.renewals == 2)
    }
}
