import COpenSSL

/// AES-128-GCM (NIST SP 800-38D) through OpenSSL's EVP_CIPHER_CTX, as the `aes128gcm` content
/// coding uses it: a 16-byte key, a 12-byte nonce, and the 16-byte tag appended to the ciphertext.
///
/// A nonce must never be used twice with one key; Web Push derives a fresh key per message.
public enum AES128GCM {
    public static let keyByteCount = 16
    public static let nonceByteCount = 12
    public static let tagByteCount = 16

    /// Why a seal or open was refused. Failures inside OpenSSL come as ``OpenSSLError``.
    public enum Failure: String, Error, Sendable, CaseIterable {
        case invalidKeyLength
        case invalidNonceLength
        /// The tag does not match: the ciphertext, the additional data, the key or the nonce is
        /// not what was sealed. Nothing of the plaintext is returned.
        case authenticationFailed
    }

    /// Encrypts `plaintext` and returns the ciphertext followed by the 16-byte tag.
    ///
    /// ```swift
    /// let sealed = try AES128GCM.seal(record, key: contentKey, nonce: nonce)
    /// ```
    ///
    /// - Parameters:
    ///   - key: 16 bytes.
    ///   - nonce: 12 bytes, unique for this key.
    ///   - additionalData: authenticated but not encrypted; empty for `aes128gcm`.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8],
                            authenticating additionalData: [UInt8] = []) throws -> [UInt8] {
        try check(key: key, nonce: nonce)
        precondition(plaintext.count <= Int(Int32.max) - tagByteCount && additionalData.count <= Int(Int32.max),
                     "AES-128-GCM input cannot exceed 2 GiB")
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.drain("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var length: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1,
              additionalData.isEmpty || EVP_EncryptUpdate(context, nil, &length, additionalData, Int32(additionalData.count)) == 1
        else { throw OpenSSLError.drain("AES-128-GCM seal") }
        var output = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        // GCM is a stream mode: Update writes every byte and Final none (into `tail`, to be sure).
        var tail = [UInt8](repeating: 0, count: tagByteCount)
        var written: Int32 = 0
        var finished: Int32 = 0
        let sealed = output.withUnsafeMutableBufferPointer { buffer in
            guard plaintext.isEmpty || EVP_EncryptUpdate(context, buffer.baseAddress, &written, plaintext, Int32(plaintext.count)) == 1,
                  EVP_EncryptFinal_ex(context, &tail, &finished) == 1,
                  Int(written) == plaintext.count, finished == 0
            else { return false }
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagByteCount), buffer.baseAddress! + plaintext.count) == 1
        }
        guard sealed else { throw OpenSSLError.drain("AES-128-GCM seal") }
        return output
    }

    /// Checks the tag and decrypts what ``seal(_:key:nonce:authenticating:)`` produced.
    ///
    /// - Throws: ``Failure/authenticationFailed`` when the tag does not match (or `sealed` is
    ///   shorter than a tag), ``Failure`` for a key or nonce of the wrong length.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8],
                            authenticating additionalData: [UInt8] = []) throws -> [UInt8] {
        try check(key: key, nonce: nonce)
        guard sealed.count >= tagByteCount else { throw Failure.authenticationFailed }
        precondition(sealed.count <= Int(Int32.max) && additionalData.count <= Int(Int32.max), "AES-128-GCM input cannot exceed 2 GiB")
        let ciphertextCount = sealed.count - tagByteCount
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.drain("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var length: Int32 = 0
        guard EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1,
              additionalData.isEmpty || EVP_DecryptUpdate(context, nil, &length, additionalData, Int32(additionalData.count)) == 1
        else { throw OpenSSLError.drain("AES-128-GCM open") }
        var tag = Array(sealed[ciphertextCount...])
        var plaintext = [UInt8](repeating: 0, count: ciphertextCount)
        var written: Int32 = 0
        let decrypted = plaintext.withUnsafeMutableBufferPointer { output in
            sealed.withUnsafeBufferPointer { input in
                ciphertextCount == 0
                    || EVP_DecryptUpdate(context, output.baseAddress, &written, input.baseAddress, Int32(ciphertextCount)) == 1
            }
        }
        guard decrypted, EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagByteCount), &tag) == 1 else {
            throw OpenSSLError.drain("AES-128-GCM open")
        }
        var tail = [UInt8](repeating: 0, count: tagByteCount)
        var finished: Int32 = 0
        let authentic = EVP_DecryptFinal_ex(context, &tail, &finished) == 1
        guard authentic, Int(written) == ciphertextCount, finished == 0 else {
            // Unauthenticated plaintext is never handed out, nor left lying in memory.
            plaintext.withUnsafeMutableBufferPointer { OPENSSL_cleanse($0.baseAddress, $0.count) }
            ERR_clear_error()
            throw Failure.authenticationFailed
        }
        return plaintext
    }

    private static func check(key: [UInt8], nonce: [UInt8]) throws {
        guard key.count == keyByteCount else { throw Failure.invalidKeyLength }
        guard nonce.count == nonceByteCount else { throw Failure.invalidNonceLength }
    }
}
