import COpenSSL

/// Web Push message encryption (RFC 8291): the `aes128gcm` content coding of RFC 8188, keyed by
/// ECDH between a one-time key pair and the subscription's `p256dh` key, mixed with its `auth`
/// secret so that only the subscribed browser can read the message.
///
/// A message is one record (RFC 8291 §4), so a body is the RFC 8188 header — salt (16 bytes),
/// record size (4, big-endian), key id length (1, = 65) and the one-time public key as key id
/// (65) — then that record: the plaintext, the last-record delimiter 0x02, and the 16-byte tag.
///
/// ```swift
/// let body = try WebPushEncryption.encrypt(plaintext: Array(json.utf8),
///                                          subscriberPublicKey: p256dh, authSecret: auth)
/// // POST `body` to the endpoint with `Content-Encoding: aes128gcm`.
/// ```
public enum WebPushEncryption {
    /// Why a message could not be encrypted or a body decrypted. Failures inside OpenSSL (out of
    /// memory, say) come as ``OpenSSLError``.
    public enum Failure: String, Error, Sendable, CaseIterable {
        /// `p256dh` is not a 65-byte uncompressed P-256 point, or the private key is not private.
        case invalidSubscriberKey
        /// `auth` is not 16 bytes.
        case invalidAuthSecret
        /// The injected salt is not 16 bytes.
        case invalidSalt
        /// The injected one-time key is a public key.
        case invalidEphemeralKey
        /// The plaintext is over ``maximumPlaintext``, or does not fit one record of the given size.
        case plaintextTooLarge
        /// The record size is below RFC 8188's minimum of 18 or above 2³² − 1.
        case invalidRecordSize
        /// The body is not a one-record `aes128gcm` body with a 65-byte P-256 key id.
        case malformedBody
        /// The tag does not match: wrong keys, or the body was altered.
        case decryptionFailed
    }

    public static let saltByteCount = 16
    public static let authSecretByteCount = 16
    public static let defaultRecordSize = 4096
    /// salt 16 + record size 4 + key id length 1 + key id 65.
    public static let headerByteCount = 86
    /// The body size every push service must accept (RFC 8030 §7.2); FCM accepts no more.
    public static let maximumBodyByteCount = 4096
    /// The longest plaintext whose body fits ``maximumBodyByteCount``: 4096 − 86 (header) − 16
    /// (tag) − 1 (delimiter) = 3993 bytes. For checking payloads when a notification is scheduled.
    public static let maximumPlaintext = maximumBodyByteCount - headerByteCount - AES128GCM.tagByteCount - 1

    /// Encrypts one push message for one subscription.
    ///
    /// - Parameters:
    ///   - plaintext: at most ``maximumPlaintext`` bytes, and fewer than `recordSize` − 17.
    ///   - p256dh: the subscription's `keys.p256dh`, a 65-byte uncompressed P-256 point.
    ///   - authSecret: the subscription's `keys.auth`, 16 bytes.
    ///   - recordSize: the `rs` header field; RFC 8291 §4 wants it above the record's length.
    ///   - ephemeralKey: the one-time key pair; a fresh one when nil. Injected only by tests:
    ///     reusing one across messages gives up forward secrecy.
    ///   - salt: 16 bytes; random when nil. Injected only by tests: a repeated salt with a
    ///     repeated key reuses the nonce.
    /// - Returns: the request body: header, then the single record.
    /// - Throws: ``Failure`` for invalid input, ``OpenSSLError`` from OpenSSL itself.
    public static func encrypt(plaintext: [UInt8], subscriberPublicKey p256dh: [UInt8], authSecret: [UInt8],
                               recordSize: Int = defaultRecordSize, ephemeralKey: ES256Key? = nil,
                               salt: [UInt8]? = nil) throws -> [UInt8] {
        guard authSecret.count == authSecretByteCount else { throw Failure.invalidAuthSecret }
        guard (18...Int(UInt32.max)).contains(recordSize) else { throw Failure.invalidRecordSize }
        // One record holding plaintext, delimiter and tag, strictly shorter than rs (RFC 8291 §4).
        guard plaintext.count <= maximumPlaintext, plaintext.count + 1 + AES128GCM.tagByteCount < recordSize else {
            throw Failure.plaintextTooLarge
        }
        if let salt, salt.count != saltByteCount { throw Failure.invalidSalt }
        if let ephemeralKey, !ephemeralKey.isPrivate { throw Failure.invalidEphemeralKey }
        guard let subscriber = try? ES256Key.importPublicPoint(p256dh) else { throw Failure.invalidSubscriberKey }
        defer { EVP_PKEY_free(subscriber) }

        let sender = try ephemeralKey ?? ES256Key.generate()
        let senderPoint = try sender.publicKeyPoint
        let salt = try salt ?? randomSalt()
        let secret = try sender.sharedSecret(withPeerKey: subscriber)
        let keys = contentKeys(ecdhSecret: secret, authSecret: authSecret, subscriberPoint: p256dh,
                               senderPoint: senderPoint, salt: salt)
        // Delimiter 0x02: this is the last (and only) record; no padding follows it.
        let record = try AES128GCM.seal(plaintext + [0x02], key: keys.key, nonce: keys.nonce)

        var body: [UInt8] = []
        body.reserveCapacity(headerByteCount + record.count)
        body += salt
        body += withUnsafeBytes(of: UInt32(recordSize).bigEndian, Array.init)
        body.append(UInt8(ES256Key.publicPointByteCount))
        body += senderPoint
        body += record
        return body
    }

    /// Decrypts a body as the subscribed browser would; the sandbox uses it to check what a
    /// sender posted.
    ///
    /// ```swift
    /// let plaintext = try WebPushEncryption.decrypt(body: requestBody, subscriberPrivateKey: browserKey,
    ///                                               authSecret: auth)
    /// ```
    ///
    /// - Parameters:
    ///   - body: the request body, with `Content-Encoding: aes128gcm`.
    ///   - subscriberPrivateKey: the private half of the subscription's `p256dh`.
    ///   - authSecret: the subscription's 16-byte `auth`.
    /// - Throws: ``Failure/malformedBody`` for a body that is not one record with a P-256 key id,
    ///   ``Failure/decryptionFailed`` when the tag does not match.
    public static func decrypt(body: [UInt8], subscriberPrivateKey: ES256Key, authSecret: [UInt8]) throws -> [UInt8] {
        guard authSecret.count == authSecretByteCount else { throw Failure.invalidAuthSecret }
        guard subscriberPrivateKey.isPrivate else { throw Failure.invalidSubscriberKey }
        guard body.count >= headerByteCount + AES128GCM.tagByteCount + 1,
              Int(body[20]) == ES256Key.publicPointByteCount
        else { throw Failure.malformedBody }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let senderPoint = Array(body[21..<headerByteCount])
        let record = Array(body[headerByteCount...])
        // A single record: no longer than rs, or the sender meant more records to follow.
        guard recordSize >= 18, record.count <= recordSize else { throw Failure.malformedBody }
        guard let sender = try? ES256Key.importPublicPoint(senderPoint) else { throw Failure.malformedBody }
        defer { EVP_PKEY_free(sender) }

        let secret = try subscriberPrivateKey.sharedSecret(withPeerKey: sender)
        let keys = contentKeys(ecdhSecret: secret, authSecret: authSecret,
                               subscriberPoint: try subscriberPrivateKey.publicKeyPoint, senderPoint: senderPoint, salt: salt)
        let padded: [UInt8]
        do {
            padded = try AES128GCM.open(record, key: keys.key, nonce: keys.nonce)
        } catch AES128GCM.Failure.authenticationFailed {
            throw Failure.decryptionFailed
        }
        // Padding is zeros after the delimiter (RFC 8188 §2); a last record's delimiter is 0x02.
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }), padded[delimiter] == 0x02 else {
            throw Failure.malformedBody
        }
        return Array(padded[..<delimiter])
    }

    /// The content-encryption key and nonce of a message's only record (sequence number 0, so
    /// the nonce is used as derived).
    static func contentKeys(ecdhSecret: [UInt8], authSecret: [UInt8], subscriberPoint: [UInt8], senderPoint: [UInt8],
                            salt: [UInt8]) -> (key: [UInt8], nonce: [UInt8]) {
        // RFC 8291 §3.4: IKM = HKDF(auth, ecdh_secret, "WebPush: info" ‖ 0x00 ‖ ua_public ‖ as_public, 32).
        let keyInfo = Array("WebPush: info".utf8) + [0] + subscriberPoint + senderPoint
        let inputKeyingMaterial = HKDFSHA256.deriveKey(inputKeyingMaterial: ecdhSecret, salt: authSecret, info: keyInfo, length: 32)
        // RFC 8188 §2.2–2.3: one PRK from the salt, then the key and the nonce.
        let pseudorandomKey = HKDFSHA256.extract(salt: salt, inputKeyingMaterial: inputKeyingMaterial)
        let key = HKDFSHA256.expand(pseudorandomKey: pseudorandomKey, info: Array("Content-Encoding: aes128gcm".utf8) + [0],
                                    length: AES128GCM.keyByteCount)
        let nonce = HKDFSHA256.expand(pseudorandomKey: pseudorandomKey, info: Array("Content-Encoding: nonce".utf8) + [0],
                                      length: AES128GCM.nonceByteCount)
        return (key, nonce)
    }

    private static func randomSalt() throws -> [UInt8] {
        var salt = [UInt8](repeating: 0, count: saltByteCount)
        guard RAND_bytes(&salt, Int32(saltByteCount)) == 1 else { throw OpenSSLError.drain("RAND_bytes") }
        return salt
    }
}
