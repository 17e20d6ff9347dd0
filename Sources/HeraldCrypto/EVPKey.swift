import COpenSSL

/// The EVP operations every key type here shares (ES256 and RS256 alike): SHA-256 signing and
/// verifying, and PEM export. Each takes an `EVP_PKEY` its caller owns and holds under its lock.
enum EVPKey {
    /// Signs `message` with SHA-256: DER for EC keys, PKCS#1 v1.5 (the context's default) for RSA.
    static func sign(_ message: [UInt8], with key: OpaquePointer) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.drain("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw OpenSSLError.drain("EVP_DigestSignInit") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw OpenSSLError.drain("EVP_DigestSign") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw OpenSSLError.drain("EVP_DigestSign") }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` (in OpenSSL's form for the key type) signs `message` with SHA-256.
    static func verify(_ signature: [UInt8], for message: [UInt8], with key: OpaquePointer) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let verified = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        ERR_clear_error()
        return verified
    }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    static func privateKeyPEM(_ key: OpaquePointer) throws -> String {
        try PEMOutput.text("PEM_write_bio_PKCS8PrivateKey") { PEM_write_bio_PKCS8PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    static func publicKeyPEM(_ key: OpaquePointer) throws -> String {
        try PEMOutput.text("PEM_write_bio_PUBKEY") { PEM_write_bio_PUBKEY($0, key) }
    }
}
