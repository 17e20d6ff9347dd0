import HeraldCrypto
import Testing

@Suite("Web Push message encryption (RFC 8291, aes128gcm)")
struct WebPushEncryptionTests {
    @Test("RFC 8291 Appendix A: the body is reproduced byte for byte")
    func rfc8291AppendixA() throws {
        let body = try WebPushEncryption.encrypt(
            plaintext: Array(RFC8291.plaintext.utf8), subscriberPublicKey: RFC8291.bytes(RFC8291.uaPublic),
            authSecret: RFC8291.bytes(RFC8291.authSecret), recordSize: 4096,
            ephemeralKey: try ES256Key(privateScalar: RFC8291.bytes(RFC8291.asPrivate)), salt: RFC8291.bytes(RFC8291.salt))
        #expect(Base64URL.encode(body) == RFC8291.body)
    }

    @Test("RFC 8291 Appendix A: the user agent's key decrypts the RFC's body to the watermelon")
    func rfc8291Decrypt() throws {
        let plaintext = try WebPushEncryption.decrypt(
            body: RFC8291.bytes(RFC8291.body), subscriberPrivateKey: try ES256Key(privateScalar: RFC8291.bytes(RFC8291.uaPrivate)),
            authSecret: RFC8291.bytes(RFC8291.authSecret))
        #expect(String(decoding: plaintext, as: UTF8.self) == RFC8291.plaintext)
    }

    @Test("Encrypting with fresh keys and salt decrypts with the subscriber's key; two bodies differ")
    func roundTrip() throws {
        let subscriber = try ES256Key.generate()
        let auth: [UInt8] = Array(0..<16)
        let message = Array(#"{"title":"Hi","body":"Tea at five"}"#.utf8)
        let body = try WebPushEncryption.encrypt(plaintext: message, subscriberPublicKey: subscriber.publicKeyPoint, authSecret: auth)
        #expect(body.count == WebPushEncryption.headerByteCount + message.count + 1 + 16)
        #expect(Array(body[16..<21]) == [0, 0, 0x10, 0, 65])
        #expect(try WebPushEncryption.decrypt(body: body, subscriberPrivateKey: subscriber, authSecret: auth) == message)
        let again = try WebPushEncryption.encrypt(plaintext: message, subscriberPublicKey: subscriber.publicKeyPoint, authSecret: auth)
        #expect(again != body && Array(again[0..<16]) != Array(body[0..<16]))
        #expect(try WebPushEncryption.decrypt(body: again, subscriberPrivateKey: subscriber, authSecret: auth) == message)
        // An empty message is still one record: just the delimiter.
        let empty = try WebPushEncryption.encrypt(plaintext: [], subscriberPublicKey: subscriber.publicKeyPoint, authSecret: auth)
        #expect(try WebPushEncryption.decrypt(body: empty, subscriberPrivateKey: subscriber, authSecret: auth).isEmpty)
    }

    @Test("A tampered body, another auth secret or another subscriber key fails to decrypt")
    func tampered() throws {
        let subscriber = try ES256Key(privateScalar: RFC8291.bytes(RFC8291.uaPrivate))
        let auth = RFC8291.bytes(RFC8291.authSecret)
        let body = RFC8291.bytes(RFC8291.body)
        // Any byte of the salt, the sender key, the ciphertext or the tag.
        for index in [0, 15, 30, 85, 86, 100, body.count - 1] {
            var changed = body
            changed[index] ^= 0x01
            #expect(throws: (any Error).self) { try WebPushEncryption.decrypt(body: changed, subscriberPrivateKey: subscriber, authSecret: auth) }
        }
        var lastByte = body
        lastByte[lastByte.count - 1] ^= 0x40
        #expect(throws: WebPushEncryption.Failure.decryptionFailed) {
            try WebPushEncryption.decrypt(body: lastByte, subscriberPrivateKey: subscriber, authSecret: auth)
        }
        var otherAuth = auth
        otherAuth[0] ^= 1
        #expect(throws: WebPushEncryption.Failure.decryptionFailed) {
            try WebPushEncryption.decrypt(body: body, subscriberPrivateKey: subscriber, authSecret: otherAuth)
        }
        #expect(throws: WebPushEncryption.Failure.decryptionFailed) {
            try WebPushEncryption.decrypt(body: body, subscriberPrivateKey: try ES256Key.generate(), authSecret: auth)
        }
        #expect(throws: WebPushEncryption.Failure.malformedBody) {
            try WebPushEncryption.decrypt(body: Array(body.prefix(90)), subscriberPrivateKey: subscriber, authSecret: auth)
        }
        var recordSizeTooSmall = body
        recordSizeTooSmall[18] = 0
        recordSizeTooSmall[19] = 20  // rs 20 < the 58-byte record
        #expect(throws: WebPushEncryption.Failure.malformedBody) {
            try WebPushEncryption.decrypt(body: recordSizeTooSmall, subscriberPrivateKey: subscriber, authSecret: auth)
        }
    }

    @Test("p256dh must be a 65-byte point on the curve, auth 16 bytes, salt 16 bytes")
    func inputValidation() throws {
        let point = try ES256Key.generate().publicKeyPoint
        let auth = [UInt8](repeating: 7, count: 16)
        var offCurve = point
        offCurve[40] ^= 0xff
        for bad in [Array(point.dropFirst()), offCurve, [UInt8](repeating: 4, count: 65)] {
            #expect(throws: WebPushEncryption.Failure.invalidSubscriberKey) {
                try WebPushEncryption.encrypt(plaintext: [1], subscriberPublicKey: bad, authSecret: auth)
            }
        }
        #expect(throws: WebPushEncryption.Failure.invalidAuthSecret) {
            try WebPushEncryption.encrypt(plaintext: [1], subscriberPublicKey: point, authSecret: Array(auth.dropLast()))
        }
        #expect(throws: WebPushEncryption.Failure.invalidSalt) {
            try WebPushEncryption.encrypt(plaintext: [1], subscriberPublicKey: point, authSecret: auth, salt: [1, 2, 3])
        }
        #expect(throws: WebPushEncryption.Failure.invalidEphemeralKey) {
            try WebPushEncryption.encrypt(plaintext: [1], subscriberPublicKey: point, authSecret: auth,
                                          ephemeralKey: try ES256Key(publicPoint: point))
        }
        #expect(throws: WebPushEncryption.Failure.invalidRecordSize) {
            try WebPushEncryption.encrypt(plaintext: [], subscriberPublicKey: point, authSecret: auth, recordSize: 17)
        }
    }

    @Test("The largest plaintext is 3993 bytes, which makes a 4096-byte body; one more is refused")
    func maximumPlaintext() throws {
        #expect(WebPushEncryption.maximumPlaintext == 3993)
        let subscriber = try ES256Key.generate()
        let auth = [UInt8](repeating: 1, count: 16)
        let largest = [UInt8](repeating: 0x61, count: 3993)
        let body = try WebPushEncryption.encrypt(plaintext: largest, subscriberPublicKey: subscriber.publicKeyPoint, authSecret: auth)
        #expect(body.count == 4096)
        #expect(try WebPushEncryption.decrypt(body: body, subscriberPrivateKey: subscriber, authSecret: auth) == largest)
        #expect(throws: WebPushEncryption.Failure.plaintextTooLarge) {
            try WebPushEncryption.encrypt(plaintext: largest + [0x61], subscriberPublicKey: subscriber.publicKeyPoint, authSecret: auth)
        }
        // The record (plaintext, delimiter, tag) must also be shorter than rs.
        #expect(throws: WebPushEncryption.Failure.plaintextTooLarge) {
            try WebPushEncryption.encrypt(plaintext: [UInt8](repeating: 0, count: 100), subscriberPublicKey: subscriber.publicKeyPoint,
                                          authSecret: auth, recordSize: 117)
        }
        let small = try WebPushEncryption.encrypt(plaintext: [UInt8](repeating: 0, count: 100), subscriberPublicKey: subscriber.publicKeyPoint,
                                                  authSecret: auth, recordSize: 118)
        #expect(try WebPushEncryption.decrypt(body: small, subscriberPrivateKey: subscriber, authSecret: auth).count == 100)
    }
}
