import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL's one-shot `HMAC()`, which OpenSSL 3 keeps undeprecated.
public enum HMACSHA256 {
    /// The length of a code, in bytes.
    public static let byteCount = 32

    /// The 32-byte authentication code of `message` under `key`.
    ///
    /// Keys longer than SHA-256's 64-byte block are hashed first, as RFC 2104 says; OpenSSL does
    /// that itself.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        precondition(key.count <= Int(Int32.max), "an HMAC key cannot exceed 2 GiB")
        var code = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        // A NULL key means "reuse the previous key" to parts of OpenSSL, so an empty key still
        // passes a real pointer (to a zero byte that is never read: the length is 0).
        let keyBytes = key.isEmpty ? [0] : key
        let result = keyBytes.withUnsafeBytes { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(key.count),
                     messageBuffer.baseAddress, messageBuffer.count, &code, &length)
            }
        }
        // HMAC() fails only when OpenSSL cannot allocate or fetch SHA-256: nothing to recover.
        precondition(result != nil && length == UInt32(byteCount), "HMAC-SHA256 failed: \(OpenSSLError.drain("HMAC"))")
        return code
    }
}
