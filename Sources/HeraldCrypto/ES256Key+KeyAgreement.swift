import COpenSSL

/// ECDH on P-256 (SEC 1 §3.3.1), as Web Push message encryption uses it (RFC 8291 §3.1).
extension ES256Key {
    /// The 32-byte ECDH shared secret (the X coordinate of the shared point) between this private
    /// key and a peer's public key.
    ///
    /// ```swift
    /// let ephemeral = try ES256Key.generate()
    /// let secret = try ephemeral.sharedSecret(with: subscription.p256dh)
    /// ```
    ///
    /// - Parameter peerPoint: the peer's public key as a 65-byte uncompressed point.
    /// - Throws: ``OpenSSLError`` when this key is public, or `peerPoint` is not a point on P-256.
    public func sharedSecret(with peerPoint: [UInt8]) throws -> [UInt8] {
        let peer = try Self.importPublicPoint(peerPoint)
        defer { EVP_PKEY_free(peer) }
        return try sharedSecret(withPeerKey: peer)
    }

    /// ECDH with a peer EVP_PKEY already imported (and checked) by ``importPublicPoint(_:)``.
    func sharedSecret(withPeerKey peer: OpaquePointer) throws -> [UInt8] {
        guard isPrivate else { throw OpenSSLError(operation: "ECDH", details: "a public key cannot agree on a secret") }
        // The peer is only read, and its owner frees it after this returns; the region checker
        // cannot see that through a C pointer, so it crosses into the lock in a box.
        let peer = PeerKey(pointer: peer)
        return try key.withLock { key in
            guard let context = EVP_PKEY_CTX_new(key, nil) else { throw OpenSSLError.drain("EVP_PKEY_CTX_new") }
            defer { EVP_PKEY_CTX_free(context) }
            var secret = [UInt8](repeating: 0, count: 32)
            var length = secret.count
            guard EVP_PKEY_derive_init(context) == 1,
                  // validate_peer 0: importPublicPoint has already checked the point once.
                  EVP_PKEY_derive_set_peer_ex(context, peer.pointer, 0) == 1,
                  EVP_PKEY_derive(context, &secret, &length) == 1, length == 32
            else { throw OpenSSLError.drain("ECDH") }
            return secret
        }
    }
}

/// A borrowed EVP_PKEY pointer, read under another key's lock.
private struct PeerKey: @unchecked Sendable {
    let pointer: OpaquePointer
}
