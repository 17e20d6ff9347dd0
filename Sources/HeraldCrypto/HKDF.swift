/// HKDF with SHA-256 (RFC 5869), on top of ``HMACSHA256``: the key schedule of Web Push
/// encryption (RFC 8291 §3.4) and of the `aes128gcm` content coding (RFC 8188 §2.2).
///
/// Built from HMAC rather than OpenSSL's EVP_KDF, since the two steps are each a line of the RFC
/// and Web Push calls them separately (one extract, several expands from the same key).
public enum HKDFSHA256 {
    /// The most `expand` can produce: 255 blocks of 32 bytes (RFC 5869 §2.3).
    public static let maximumLength = 255 * HMACSHA256.byteCount

    /// HKDF-Extract: the 32-byte pseudorandom key `HMAC(salt, ikm)`.
    ///
    /// An empty salt stands for 32 zero bytes, as RFC 5869 §2.2 says; HMAC pads keys with zeros,
    /// so both give the same key.
    public static func extract(salt: [UInt8], inputKeyingMaterial: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(key: salt, message: inputKeyingMaterial)
    }

    /// HKDF-Expand: `length` bytes of `T(1)‖T(2)‖…`, where `T(i) = HMAC(prk, T(i-1)‖info‖i)`.
    ///
    /// - Parameters:
    ///   - pseudorandomKey: the output of ``extract(salt:inputKeyingMaterial:)``.
    ///   - info: what the key is for; different `info` gives independent keys.
    ///   - length: 0 to ``maximumLength`` bytes; more is a programming error.
    public static func expand(pseudorandomKey: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition((0...maximumLength).contains(length), "HKDF-SHA256 can expand to at most \(maximumLength) bytes")
        var output: [UInt8] = []
        output.reserveCapacity(length + HMACSHA256.byteCount)
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            block = HMACSHA256.authenticationCode(key: pseudorandomKey, message: block + info + [counter])
            output += block
            counter &+= 1
        }
        return Array(output.prefix(length))
    }

    /// Extract then expand: `length` bytes of key material for `info`.
    ///
    /// ```swift
    /// let key = HKDFSHA256.deriveKey(inputKeyingMaterial: sharedSecret, salt: salt,
    ///                                info: Array("Content-Encoding: aes128gcm\0".utf8), length: 16)
    /// ```
    public static func deriveKey(inputKeyingMaterial: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        expand(pseudorandomKey: extract(salt: salt, inputKeyingMaterial: inputKeyingMaterial), info: info, length: length)
    }
}
