import Foundation
import HeraldCrypto
import Testing

/// The RFC 8291 Appendix A keys, base64url as the RFC prints them.
enum RFC8291 {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    /// The user agent's (subscriber's) key pair.
    static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    /// The application server's one-time key pair.
    static let asPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let ecdhSecret = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"
    /// The whole encrypted body.
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
        + "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
        + "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func bytes(_ text: String) -> [UInt8] { Base64URL.decode(text)! }
}

@Suite("P-256 key pairs and ECDH")
struct P256KeyTests {
    @Test("A generated key exports a 65-byte uncompressed point that imports back as the same public key")
    func generatedPointRoundTrip() throws {
        let key = try ES256Key.generate()
        #expect(key.isPrivate)
        let point = try key.publicKeyPoint
        #expect(point.count == 65 && point[0] == 0x04)
        let imported = try ES256Key(publicPoint: point)
        #expect(!imported.isPrivate)
        #expect(try imported.publicKeyPoint == point)
        let signature = try key.sign(Array("hello".utf8))
        #expect(imported.verify(signature: signature, for: Array("hello".utf8)))
    }

    @Test("A private key written as PKCS#8 PEM reads back with ES256Key(pem:) and keeps its public point")
    func privateKeyPEMRoundTrip() throws {
        let key = try ES256Key.generate()
        let pem = try key.privateKeyPEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let reread = try ES256Key(pem: pem)
        #expect(reread.isPrivate)
        #expect(try reread.publicKeyPoint == key.publicKeyPoint)
        let signature = try reread.sign(Array("stored".utf8))
        #expect(try ES256Key(pem: key.publicKeyPEM()).verify(signature: signature, for: Array("stored".utf8)))
    }

    @Test("The public point of a PEM key (the dev APNs key) is the same from its private and its public PEM")
    func pointOfPEMKey() throws {
        let point = try DevKeys.privateKey().publicKeyPoint
        #expect(point.count == 65)
        #expect(try DevKeys.publicKey().publicKeyPoint == point)
        #expect(throws: OpenSSLError.self) { try DevKeys.publicKey().privateKeyPEM() }
    }

    @Test("A private key built from the RFC 8291 scalar has the RFC's public point")
    func privateScalar() throws {
        let server = try ES256Key(privateScalar: RFC8291.bytes(RFC8291.asPrivate))
        #expect(try server.publicKeyPoint == RFC8291.bytes(RFC8291.asPublic))
        let agent = try ES256Key(privateScalar: RFC8291.bytes(RFC8291.uaPrivate))
        #expect(try agent.publicKeyPoint == RFC8291.bytes(RFC8291.uaPublic))
        // And it signs like any other private key.
        let signature = try server.sign(Array("x".utf8))
        #expect(try ES256Key(publicPoint: RFC8291.bytes(RFC8291.asPublic)).verify(signature: signature, for: Array("x".utf8)))
    }

    @Test("Scalars of the wrong length, zero, or not below the group order are refused")
    func invalidScalars() {
        #expect(throws: OpenSSLError.self) { try ES256Key(privateScalar: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: OpenSSLError.self) { try ES256Key(privateScalar: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: OpenSSLError.self) { try ES256Key(privateScalar: [UInt8](repeating: 0xff, count: 32)) }
        // n itself, the order of P-256.
        let order = HexText.bytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        #expect(throws: OpenSSLError.self) { try ES256Key(privateScalar: order) }
    }

    @Test("ECDH gives both sides the same 32-byte secret, the RFC 8291 one for the RFC's keys")
    func sharedSecret() throws {
        let server = try ES256Key(privateScalar: RFC8291.bytes(RFC8291.asPrivate))
        let agent = try ES256Key(privateScalar: RFC8291.bytes(RFC8291.uaPrivate))
        let secret = try server.sharedSecret(with: RFC8291.bytes(RFC8291.uaPublic))
        #expect(secret == RFC8291.bytes(RFC8291.ecdhSecret))
        #expect(try agent.sharedSecret(with: RFC8291.bytes(RFC8291.asPublic)) == secret)

        let a = try ES256Key.generate()
        let b = try ES256Key.generate()
        let ab = try a.sharedSecret(with: b.publicKeyPoint)
        #expect(ab.count == 32)
        #expect(try b.sharedSecret(with: a.publicKeyPoint) == ab)
        #expect(throws: OpenSSLError.self) { try ES256Key(publicPoint: a.publicKeyPoint).sharedSecret(with: b.publicKeyPoint) }
    }

    @Test("Points of the wrong length or form, or off the curve, are refused on import and in ECDH")
    func invalidPoints() throws {
        let key = try ES256Key.generate()
        let point = try key.publicKeyPoint
        var offCurve = point
        offCurve[64] ^= 0x01
        var compressedTag = point
        compressedTag[0] = 0x02
        let candidates: [[UInt8]] = [
            [], [0x04], Array(point.dropLast()), point + [0], compressedTag, offCurve,
            [0x04] + [UInt8](repeating: 0, count: 64),  // (0, 0) is not on P-256
            Array(point.prefix(33)),  // a compressed point is not accepted either
        ]
        for bad in candidates {
            #expect(throws: OpenSSLError.self) { try ES256Key(publicPoint: bad) }
            #expect(throws: OpenSSLError.self) { try key.sharedSecret(with: bad) }
        }
    }

    @Test("One key serves many tasks at once")
    func concurrentUse() async throws {
        let key = try ES256Key.generate()
        let peer = try ES256Key.generate().publicKeyPoint
        let expected = try key.sharedSecret(with: peer)
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<32 {
                group.addTask { try key.sharedSecret(with: peer) }
            }
            for try await secret in group {
                #expect(secret == expected)
            }
        }
    }
}
