import COpenSSL
import Foundation
import Synchronization

/// An EC P-256 key in OpenSSL, freed when this goes away. Private keys sign; public keys verify.
///
/// APNs provider tokens are ES256: ECDSA over P-256 with SHA-256, with the signature written as
/// the raw 64 bytes R‖S (JWS form), not the DER that OpenSSL produces.
public final class ES256Key: Sendable {
    /// The EVP_PKEY; used under the lock so one key can serve many tasks. Internal (not private)
    /// so the key-agreement and raw-form extensions in other files can reach it.
    let key: Mutex<OpaquePointer>
    public let isPrivate: Bool

    /// Takes ownership of `pkey`, an EC P-256 EVP_PKEY the caller has already checked.
    init(taking pkey: OpaquePointer, isPrivate: Bool) {
        // The caller hands over its only reference; region checking cannot follow a C pointer's owner.
        nonisolated(unsafe) let owned = pkey
        key = Mutex(owned)
        self.isPrivate = isPrivate
    }

    /// Reads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, as Apple's `.p8`) or public key.
    public init(pem: String) throws {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            if pem.contains("PRIVATE KEY") {
                return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
            }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let parsed else { throw OpenSSLError.drain("reading an EC key") }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC, EVP_PKEY_get_bits(parsed) == 256 else {
            EVP_PKEY_free(parsed)
            throw OpenSSLError(operation: "reading an EC key", details: "the key is not an EC P-256 key")
        }
        key = Mutex(parsed)
        isPrivate = pem.contains("PRIVATE KEY")
    }

    public convenience init(contentsOfFile path: String) throws {
        try self.init(pem: try String(contentsOfFile: path, encoding: .utf8))
    }

    deinit {
        key.withLock { EVP_PKEY_free($0) }
    }

    /// Signs `message` with ES256 and returns the 64-byte R‖S signature.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard isPrivate else { throw OpenSSLError(operation: "signing", details: "a public key cannot sign") }
        let der = try key.withLock { try EVPKey.sign(message, with: $0) }
        return try Self.rawSignature(fromDER: der)
    }

    /// Checks a 64-byte R‖S ES256 signature over `message`.
    public func verify(signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 64, let der = Self.derSignature(fromRaw: signature) else { return false }
        return key.withLock { EVPKey.verify(der, for: message, with: $0) }
    }

    /// DER `SEQUENCE { r INTEGER, s INTEGER }` → 32-byte big-endian r ‖ 32-byte s.
    static func rawSignature(fromDER der: [UInt8]) throws -> [UInt8] {
        var cursor: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else { throw OpenSSLError.drain("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        guard written else { throw OpenSSLError.drain("BN_bn2binpad") }
        return raw
    }

    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s else { return nil }
        // On success the signature owns r and s.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var output: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
