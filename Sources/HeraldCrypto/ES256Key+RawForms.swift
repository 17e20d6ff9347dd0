import COpenSSL

/// P-256 keys in the raw forms Web Push uses: a public key is the 65-byte uncompressed point
/// 0x04‖X‖Y (RFC 8291 `p256dh`, RFC 8292 `k`), a private key the 32-byte scalar. Also new key
/// pairs, and the PKCS#8 PEM a generated key is stored as and read back with ``init(pem:)``.
extension ES256Key {
    /// The length of an uncompressed P-256 point: 0x04, then X and Y of 32 bytes each.
    public static let publicPointByteCount = 65
    /// The length of a P-256 private scalar.
    public static let privateScalarByteCount = 32

    /// A new random P-256 key pair, for a VAPID identity or a Web Push message's one-time key.
    ///
    /// ```swift
    /// let vapid = try ES256Key.generate()
    /// try vapid.privateKeyPEM().write(toFile: "vapid.pem", atomically: true, encoding: .utf8)
    /// let applicationServerKey = Base64URL.encode(try vapid.publicKeyPoint)
    /// ```
    public static func generate() throws -> ES256Key {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw OpenSSLError.drain("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_generate(context, &generated) == 1, let generated
        else { throw OpenSSLError.drain("generating a P-256 key") }
        return ES256Key(taking: generated, isPrivate: true)
    }

    /// A public key from its uncompressed point, as a subscription's `p256dh` or a VAPID `k`.
    ///
    /// - Parameter publicPoint: 65 bytes, 0x04‖X‖Y.
    /// - Throws: ``OpenSSLError`` when the bytes are not an uncompressed point on P-256; a point
    ///   off the curve would otherwise leak the private key it is combined with.
    public convenience init(publicPoint: [UInt8]) throws {
        self.init(taking: try Self.importPublicPoint(publicPoint), isPrivate: false)
    }

    /// A private key from its raw 32-byte big-endian scalar, as the RFC 8291 test vectors give it.
    ///
    /// - Parameter privateScalar: 32 bytes, a number from 1 to the group order minus 1.
    /// - Throws: ``OpenSSLError`` when the length or the value is out of range.
    public convenience init(privateScalar: [UInt8]) throws {
        let operation = "reading a P-256 private scalar"
        guard privateScalar.count == Self.privateScalarByteCount else {
            throw OpenSSLError(operation: operation, details: "a P-256 scalar is 32 bytes, not \(privateScalar.count)")
        }
        guard let scalar = BN_bin2bn(privateScalar, Int32(privateScalar.count), nil) else { throw OpenSSLError.drain(operation) }
        defer { BN_clear_free(scalar) }
        // OpenSSL 3.0 does not derive the public half on import, so it is computed here.
        let point = try Self.publicPoint(ofScalar: scalar)
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLError.drain("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The builder keeps pointers until `to_param` copies them, so it runs inside the closure.
        let params: UnsafeMutablePointer<OSSL_PARAM>? = point.withUnsafeBytes { raw in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, herald_OSSL_PKEY_PARAM_GROUP_NAME(), herald_P256_GROUP_NAME(), 0) == 1,
                  OSSL_PARAM_BLD_push_octet_string(builder, herald_OSSL_PKEY_PARAM_PUB_KEY(), raw.baseAddress, raw.count) == 1,
                  OSSL_PARAM_BLD_push_BN(builder, herald_OSSL_PKEY_PARAM_PRIV_KEY(), scalar) == 1
            else { return nil }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params else { throw OpenSSLError.drain(operation) }
        defer { OSSL_PARAM_free(params) }
        self.init(taking: try Self.key(from: params, selection: herald_EVP_PKEY_KEYPAIR(), operation: operation), isPrivate: true)
    }

    /// The public key as the 65-byte uncompressed point 0x04‖X‖Y; a private key gives its public half.
    ///
    /// Read from X and Y rather than OpenSSL's encoded form, which follows the point format the
    /// key was loaded with and may be compressed.
    public var publicKeyPoint: [UInt8] {
        get throws {
            try key.withLock { key in
                var x: OpaquePointer?
                var y: OpaquePointer?
                defer {
                    BN_free(x)
                    BN_free(y)
                }
                var point = [UInt8](repeating: 0x04, count: Self.publicPointByteCount)
                let written = point.withUnsafeMutableBufferPointer { buffer in
                    EVP_PKEY_get_bn_param(key, herald_OSSL_PKEY_PARAM_EC_PUB_X(), &x) == 1
                        && EVP_PKEY_get_bn_param(key, herald_OSSL_PKEY_PARAM_EC_PUB_Y(), &y) == 1
                        && BN_bn2binpad(x, buffer.baseAddress! + 1, 32) == 32
                        && BN_bn2binpad(y, buffer.baseAddress! + 33, 32) == 32
                }
                guard written else { throw OpenSSLError.drain("reading a P-256 public point") }
                return point
            }
        }
    }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form of an
    /// APNs `.p8` file, which ``init(pem:)`` reads back.
    public func privateKeyPEM() throws -> String {
        guard isPrivate else { throw OpenSSLError(operation: "writing a private key", details: "a public key has no private part") }
        return try key.withLock { try EVPKey.privateKeyPEM($0) }
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public func publicKeyPEM() throws -> String {
        try key.withLock { try EVPKey.publicKeyPEM($0) }
    }

    /// A new EVP_PKEY (owned by the caller) for an uncompressed P-256 point, checked to lie on the curve.
    static func importPublicPoint(_ point: [UInt8]) throws -> OpaquePointer {
        let operation = "reading a P-256 public point"
        guard point.count == publicPointByteCount, point[0] == 0x04 else {
            throw OpenSSLError(operation: operation, details: "not a 65-byte uncompressed point (0x04‖X‖Y)")
        }
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLError.drain("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let params: UnsafeMutablePointer<OSSL_PARAM>? = point.withUnsafeBytes { raw in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, herald_OSSL_PKEY_PARAM_GROUP_NAME(), herald_P256_GROUP_NAME(), 0) == 1,
                  OSSL_PARAM_BLD_push_octet_string(builder, herald_OSSL_PKEY_PARAM_PUB_KEY(), raw.baseAddress, raw.count) == 1
            else { return nil }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params else { throw OpenSSLError.drain(operation) }
        defer { OSSL_PARAM_free(params) }
        let imported = try key(from: params, selection: herald_EVP_PKEY_PUBLIC_KEY(), operation: operation)
        // Import already refuses most bad points; the explicit check states the guarantee. The
        // quick check (on the curve, not infinity) is complete for P-256, whose cofactor is 1.
        guard let check = EVP_PKEY_CTX_new(imported, nil) else {
            EVP_PKEY_free(imported)
            throw OpenSSLError.drain("EVP_PKEY_CTX_new")
        }
        defer { EVP_PKEY_CTX_free(check) }
        guard EVP_PKEY_public_check_quick(check) == 1 else {
            EVP_PKEY_free(imported)
            throw OpenSSLError.drain(operation)
        }
        return imported
    }

    /// EVP_PKEY_fromdata for an EC key; the result is owned by the caller.
    private static func key(from params: UnsafeMutablePointer<OSSL_PARAM>, selection: Int32, operation: String) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw OpenSSLError.drain("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var imported: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &imported, selection, params) == 1,
              let imported
        else { throw OpenSSLError.drain(operation) }
        return imported
    }

    /// scalar × G as an uncompressed point, refusing 0 and scalars not below the group order.
    private static func publicPoint(ofScalar scalar: OpaquePointer) throws -> [UInt8] {
        let operation = "reading a P-256 private scalar"
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw OpenSSLError.drain("EC_GROUP_new_by_curve_name") }
        defer { EC_GROUP_free(group) }
        guard BN_is_zero(scalar) == 0, BN_cmp(scalar, EC_GROUP_get0_order(group)) < 0 else {
            throw OpenSSLError(operation: operation, details: "the scalar is not between 1 and the group order")
        }
        guard let product = EC_POINT_new(group) else { throw OpenSSLError.drain("EC_POINT_new") }
        defer { EC_POINT_free(product) }
        var point = [UInt8](repeating: 0, count: publicPointByteCount)
        guard EC_POINT_mul(group, product, scalar, nil, nil, nil) == 1,
              EC_POINT_point2oct(group, product, POINT_CONVERSION_UNCOMPRESSED, &point, point.count, nil) == point.count
        else { throw OpenSSLError.drain(operation) }
        return point
    }
}
