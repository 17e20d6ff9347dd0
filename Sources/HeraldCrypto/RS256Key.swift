import COpenSSL
import Foundation
import Synchronization

/// An RSA key in OpenSSL, freed when this goes away, for RS256: RSASSA-PKCS1-v1_5 with SHA-256
/// (RFC 7518 §3.3). Google service accounts sign their OAuth assertions with it.
public final class RS256Key: Sendable {
    /// The smallest modulus accepted, in bits; RFC 7518 §3.3 requires 2048 or more.
    public static let minimumBits = 2048

    /// The EVP_PKEY; used under the lock so one key can serve many tasks.
    private let key: Mutex<OpaquePointer>
    public let isPrivate: Bool
    /// The modulus size; a signature is this many bits long.
    public let bits: Int

    /// Reads a PEM key: a private key (PKCS#8 `BEGIN PRIVATE KEY`, as in a Google service account's
    /// JSON `private_key`, or PKCS#1 `BEGIN RSA PRIVATE KEY`), a public key (`BEGIN PUBLIC KEY`),
    /// or a certificate (`BEGIN CERTIFICATE`, as Google publishes account keys), whose key is taken.
    ///
    /// ```swift
    /// let key = try RS256Key(pem: serviceAccount.privateKey)
    /// ```
    ///
    /// - Throws: ``OpenSSLError`` when the text is none of these, is encrypted, or is not an RSA
    ///   key of at least ``minimumBits`` bits.
    public convenience init(pem: String) throws {
        let operation = "reading an RSA key"
        let isPrivate = pem.contains("PRIVATE KEY")
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            if isPrivate {
                // No passphrase callback would make OpenSSL prompt on the terminal; this one refuses.
                return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
            }
            if pem.contains("BEGIN CERTIFICATE") {
                guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else { return nil }
                defer { X509_free(certificate) }
                return X509_get_pubkey(certificate)
            }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let parsed else { throw OpenSSLError.drain(operation) }
        try self.init(taking: parsed, isPrivate: isPrivate, operation: operation)
    }

    public convenience init(contentsOfFile path: String) throws {
        try self.init(pem: try String(contentsOfFile: path, encoding: .utf8))
    }

    /// Takes ownership of `pkey`, freeing it and throwing if it is not RSA of at least 2048 bits.
    private init(taking pkey: OpaquePointer, isPrivate: Bool, operation: String) throws {
        let bits = Int(EVP_PKEY_get_bits(pkey))
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_RSA, bits >= Self.minimumBits else {
            EVP_PKEY_free(pkey)
            throw OpenSSLError(operation: operation, details: "the key is not an RSA key of at least \(Self.minimumBits) bits")
        }
        // The caller hands over its only reference; region checking cannot follow a C pointer's owner.
        nonisolated(unsafe) let owned = pkey
        key = Mutex(owned)
        self.isPrivate = isPrivate
        self.bits = bits
    }

    deinit {
        key.withLock { EVP_PKEY_free($0) }
    }

    /// A new RSA key pair (public exponent 65537), for tests and for a development service account.
    ///
    /// ```swift
    /// let key = try RS256Key.generate()
    /// let privatePEM = try key.privateKeyPEM()
    /// ```
    ///
    /// - Parameter bits: the modulus size, at least ``minimumBits``. Generation takes a fraction of
    ///   a second at 2048 bits and grows quickly beyond.
    public static func generate(bits: Int = 2048) throws -> RS256Key {
        let operation = "generating an RSA key"
        guard bits >= minimumBits, bits <= 16384 else {
            throw OpenSSLError(operation: operation, details: "\(bits) bits is outside \(minimumBits)–16384")
        }
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw OpenSSLError.drain("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
              EVP_PKEY_generate(context, &generated) == 1, let generated
        else { throw OpenSSLError.drain(operation) }
        return try RS256Key(taking: generated, isPrivate: true, operation: operation)
    }

    /// Signs `message` with RS256 and returns the signature, ``bits`` / 8 bytes.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard isPrivate else { throw OpenSSLError(operation: "signing", details: "a public key cannot sign") }
        // PKCS#1 v1.5 is the default padding of an RSA signing context.
        return try key.withLock { try EVPKey.sign(message, with: $0) }
    }

    /// Checks an RS256 signature over `message`.
    public func verify(signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == (bits + 7) / 8 else { return false }
        return key.withLock { EVPKey.verify(signature, for: message, with: $0) }
    }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form of a
    /// service account's `private_key`.
    public func privateKeyPEM() throws -> String {
        guard isPrivate else { throw OpenSSLError(operation: "writing a private key", details: "a public key has no private part") }
        return try key.withLock { try EVPKey.privateKeyPEM($0) }
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public func publicKeyPEM() throws -> String {
        try key.withLock { try EVPKey.publicKeyPEM($0) }
    }
}
