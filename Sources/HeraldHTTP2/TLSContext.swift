import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// Owns one SSL_CTX: the shareable part of TLS (trust store, identity, ALPN policy). OpenSSL
/// allows concurrent use of a configured SSL_CTX, hence `@unchecked Sendable`; it is never
/// mutated after init.
///
/// A client context also owns the session cache its connections resume from; `forPeer(host:port:)`
/// gives a connection a view of the same SSL_CTX and cache that knows which server it dials.
final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    let isServer: Bool
    /// ALPN protocols in wire format (length-prefixed), kept alive for the select callback.
    let alpnWire: [UInt8]
    let verifyPeer: Bool
    /// Client only: the latest resumable session per server, shared by every view of this context.
    let sessionCache: TLSSessionCache?
    /// Client views only: the "host:port" their connections dial, part of the session key.
    /// Without it a connection neither offers nor stores sessions.
    let peerAddress: String?

    init(client configuration: TLSConfiguration) throws(HTTP2Error) {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw .tls("SSL_CTX_new failed: \(TLSContext.drainErrors())")
        }
        pointer = ctx
        isServer = false
        verifyPeer = configuration.verifyPeer
        alpnWire = TLSContext.wireFormat(configuration.alpnProtocols)
        sessionCache = TLSSessionCache()
        peerAddress = nil
        try applyCommon(minimumVersion: configuration.minimumVersion)

        switch configuration.trustRoots {
        case .system:
            guard SSL_CTX_set_default_verify_paths(ctx) == 1 else {
                throw .tls("cannot load the system CA store: \(TLSContext.drainErrors())")
            }
        case .caFile(let path):
            try TLSContext.requireReadable(path, what: "CA file")
            guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
                throw .tls("cannot load CA file \(path): \(TLSContext.drainErrors())")
            }
        }
        SSL_CTX_set_verify(ctx, configuration.verifyPeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)

        switch configuration.clientCertificate {
        case nil: break
        case .pem(let certificateFile, let keyFile):
            try useIdentity(certificateFile: certificateFile, keyFile: keyFile)
        case .pkcs12(let file, let password):
            try TLSContext.requireReadable(file, what: "PKCS#12 file")
            try usePKCS12(try MemoryOrFileBIO(file: file), password: password, name: file)
        case .pemContent(let certificate, let key):
            try usePEM(certificate: try MemoryOrFileBIO(bytes: Array(certificate.utf8)),
                       key: try MemoryOrFileBIO(bytes: Array(key.utf8)))
        case .pkcs12Content(let bytes, let password):
            try usePKCS12(try MemoryOrFileBIO(bytes: bytes), password: password, name: "the uploaded PKCS#12 bundle")
        }

        guard !alpnWire.isEmpty else { throw .invalidConfiguration("ALPN protocol list is empty") }
        let rc = alpnWire.withUnsafeBufferPointer { SSL_CTX_set_alpn_protos(ctx, $0.baseAddress, UInt32($0.count)) }
        guard rc == 0 else { throw .tls("cannot set ALPN protocols: \(TLSContext.drainErrors())") }

        // Session resumption: OpenSSL hands every new session (with TLS 1.3, each NewSessionTicket
        // after the handshake) to this callback instead of an internal cache. The connection it
        // belongs to is the SSL's app data (see TLSConnection); returning 1 keeps the reference.
        _ = herald_SSL_CTX_enable_client_session_callback(ctx)
        SSL_CTX_sess_set_new_cb(ctx) { ssl, session in
            guard let ssl, let session, let owner = herald_SSL_get_app_data(ssl) else { return 0 }
            let connection = Unmanaged<TLSConnection>.fromOpaque(owner).takeUnretainedValue()
            return connection.sessionReceived(session) ? 1 : 0
        }
    }

    /// A client view for connections to `host:port`: the same SSL_CTX (one more reference) and
    /// session cache, plus the address that scopes which sessions its connections offer.
    private init(view base: TLSContext, peerAddress: String) {
        SSL_CTX_up_ref(base.pointer)
        pointer = base.pointer
        isServer = base.isServer
        alpnWire = base.alpnWire
        verifyPeer = base.verifyPeer
        sessionCache = base.sessionCache
        self.peerAddress = peerAddress
    }

    /// The context for one client connection to `host:port`, so it can resume that server's session.
    func forPeer(host: String, port: Int) -> TLSContext {
        precondition(!isServer, "session resumption is client side")
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return TLSContext(view: self, peerAddress: address)
    }

    init(server configuration: TLSServerConfiguration) throws(HTTP2Error) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else {
            throw .tls("SSL_CTX_new failed: \(TLSContext.drainErrors())")
        }
        pointer = ctx
        isServer = true
        verifyPeer = configuration.clientCAFile != nil
        alpnWire = TLSContext.wireFormat(configuration.alpnProtocols)
        sessionCache = nil
        peerAddress = nil
        try applyCommon(minimumVersion: configuration.minimumVersion)
        try useIdentity(certificateFile: configuration.certificateFile, keyFile: configuration.keyFile)
        // Clients resume with session tickets (OpenSSL's default for servers). A server that
        // verifies client certificates must name a session ID context, or OpenSSL fails every
        // handshake that tries to resume instead of falling back to a full one.
        let sessionContext = Array("herald-h2".utf8)
        guard SSL_CTX_set_session_id_context(ctx, sessionContext, UInt32(sessionContext.count)) == 1 else {
            throw .tls("cannot set the session ID context: \(TLSContext.drainErrors())")
        }

        if let caFile = configuration.clientCAFile {
            try TLSContext.requireReadable(caFile, what: "client CA file")
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                throw .tls("cannot load client CA file \(caFile): \(TLSContext.drainErrors())")
            }
            if let names = SSL_load_client_CA_file(caFile) { SSL_CTX_set_client_CA_list(ctx, names) }
            var mode = SSL_VERIFY_PEER
            if configuration.requireClientCertificate { mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT }
            SSL_CTX_set_verify(ctx, mode, nil)
        } else {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }

        // The callback gets `self` back through `arg`; the SSL_CTX never outlives `self`.
        SSL_CTX_set_alpn_select_cb(ctx, { _, out, outLength, offered, offeredLength, arg in
            guard let arg, let out, let outLength, let offered else { return herald_SSL_TLSEXT_ERR_NOACK() }
            let context = Unmanaged<TLSContext>.fromOpaque(arg).takeUnretainedValue()
            let client = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
            guard let (offset, length) = context.selectALPN(from: client) else { return herald_SSL_TLSEXT_ERR_NOACK() }
            out.pointee = UnsafePointer(offered + offset)
            outLength.pointee = length
            return herald_SSL_TLSEXT_ERR_OK()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { SSL_CTX_free(pointer) }

    private func applyCommon(minimumVersion: TLSVersion) throws(HTTP2Error) {
        let version = minimumVersion == .tls13 ? TLS1_3_VERSION : TLS1_2_VERSION
        guard herald_SSL_CTX_set_min_proto_version(pointer, version) == 1 else {
            throw .tls("cannot set minimum TLS version: \(TLSContext.drainErrors())")
        }
        // Renegotiation and compression are forbidden by RFC 9113 section 9.2.
        _ = herald_SSL_CTX_set_options(pointer, herald_SSL_OP_NO_COMPRESSION_AND_RENEGOTIATION())
        _ = herald_SSL_CTX_set_mode(pointer, Int(SSL_MODE_RELEASE_BUFFERS))
    }

    private func useIdentity(certificateFile: String, keyFile: String) throws(HTTP2Error) {
        try TLSContext.requireReadable(certificateFile, what: "certificate file")
        try TLSContext.requireReadable(keyFile, what: "private key file")
        guard SSL_CTX_use_certificate_chain_file(pointer, certificateFile) == 1 else {
            throw .tls("cannot load certificate \(certificateFile): \(TLSContext.drainErrors())")
        }
        guard SSL_CTX_use_PrivateKey_file(pointer, keyFile, SSL_FILETYPE_PEM) == 1 else {
            throw .tls("cannot load private key \(keyFile): \(TLSContext.drainErrors())")
        }
        guard SSL_CTX_check_private_key(pointer) == 1 else {
            throw .tls("private key \(keyFile) does not match certificate \(certificateFile): \(TLSContext.drainErrors())")
        }
    }

    /// An identity from PEM text: the first certificate is the leaf, the rest its chain.
    private func usePEM(certificate: MemoryOrFileBIO, key: MemoryOrFileBIO) throws(HTTP2Error) {
        guard let leaf = PEM_read_bio_X509(certificate.pointer, nil, nil, nil) else {
            throw .tls("the uploaded certificate is not PEM: \(TLSContext.drainErrors())")
        }
        defer { X509_free(leaf) }
        guard SSL_CTX_use_certificate(pointer, leaf) == 1 else {
            throw .tls("cannot use the uploaded certificate: \(TLSContext.drainErrors())")
        }
        while let extra = PEM_read_bio_X509(certificate.pointer, nil, nil, nil) {
            // The SSL_CTX owns `extra` once added.
            if herald_SSL_CTX_add_extra_chain_cert(pointer, extra) != 1 { X509_free(extra) }
        }
        ERR_clear_error()  // the loop ends on a "no start line" error
        guard let privateKey = PEM_read_bio_PrivateKey(key.pointer, nil, nil, nil) else {
            throw .tls("the uploaded private key is not PEM: \(TLSContext.drainErrors())")
        }
        defer { EVP_PKEY_free(privateKey) }
        guard SSL_CTX_use_PrivateKey(pointer, privateKey) == 1, SSL_CTX_check_private_key(pointer) == 1 else {
            throw .tls("the uploaded private key does not match the certificate: \(TLSContext.drainErrors())")
        }
    }

    private func usePKCS12(_ source: MemoryOrFileBIO, password: String, name: String) throws(HTTP2Error) {
        guard let p12 = d2i_PKCS12_bio(source.pointer, nil) else {
            throw .tls("\(name) is not a PKCS#12 bundle: \(TLSContext.drainErrors())")
        }
        defer { PKCS12_free(p12) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var chain: OpaquePointer?
        guard PKCS12_parse(p12, password, &key, &certificate, &chain) == 1 else {
            throw .tls("cannot decrypt \(name) (wrong password?): \(TLSContext.drainErrors())")
        }
        defer {
            if let key { EVP_PKEY_free(key) }
            if let certificate { X509_free(certificate) }
            if let chain { herald_X509_pop_free_stack(chain) }
        }
        guard let certificate, let key else { throw .tls("\(name) holds no certificate and key") }
        guard SSL_CTX_use_certificate(pointer, certificate) == 1, SSL_CTX_use_PrivateKey(pointer, key) == 1,
              SSL_CTX_check_private_key(pointer) == 1 else {
            throw .tls("cannot use the identity in \(name): \(TLSContext.drainErrors())")
        }
        if let chain {
            for index in 0..<herald_X509_stack_count(chain) {
                guard let extra = herald_X509_stack_value(chain, index) else { continue }
                X509_up_ref(extra)  // the SSL_CTX takes ownership of this new reference
                if herald_SSL_CTX_add_extra_chain_cert(pointer, extra) != 1 { X509_free(extra) }
            }
        }
    }

    /// Server preference order: the first of our protocols the client also offers.
    func selectALPN(from offered: UnsafeBufferPointer<UInt8>) -> (offset: Int, length: UInt8)? {
        var ours = 0
        while ours < alpnWire.count {
            let ourLength = Int(alpnWire[ours])
            var theirs = 0
            while theirs < offered.count {
                let theirLength = Int(offered[theirs])
                if theirLength == ourLength, theirs + 1 + theirLength <= offered.count,
                   alpnWire[(ours + 1)..<(ours + 1 + ourLength)].elementsEqual(offered[(theirs + 1)..<(theirs + 1 + theirLength)]) {
                    return (theirs + 1, UInt8(theirLength))
                }
                theirs += 1 + theirLength
            }
            ours += 1 + ourLength
        }
        return nil
    }

    static func wireFormat(_ protocols: [String]) -> [UInt8] {
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            guard !bytes.isEmpty, bytes.count < 256 else { continue }
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        return wire
    }

    /// Empties this thread's OpenSSL error queue into one readable line.
    static func drainErrors() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(stringFromCBuffer(buffer))
        }
        return messages.isEmpty ? "no OpenSSL error details" : messages.joined(separator: "; ")
    }

    /// A missing file gives a clearer message than OpenSSL's "system library" error.
    private static func requireReadable(_ path: String, what: String) throws(HTTP2Error) {
        if access(path, R_OK) != 0 {
            throw .invalidConfiguration("\(what) \(path) is not readable: \(errnoString())")
        }
    }
}

/// Owns one OpenSSL BIO over a file or over bytes it keeps alive, and frees it.
private final class MemoryOrFileBIO {
    let pointer: OpaquePointer
    /// A memory BIO reads these bytes in place, so they live as long as the BIO.
    private let bytes: UnsafeMutableRawBufferPointer?

    init(file: String) throws(HTTP2Error) {
        guard let bio = BIO_new_file(file, "rb") else { throw .tls("cannot open \(file): \(TLSContext.drainErrors())") }
        pointer = bio
        bytes = nil
    }

    init(bytes source: [UInt8]) throws(HTTP2Error) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, source.count), alignment: 1)
        copy.copyBytes(from: source)
        guard let bio = BIO_new_mem_buf(copy.baseAddress, Int32(source.count)) else {
            copy.deallocate()
            throw .tls("cannot read credentials from memory: \(TLSContext.drainErrors())")
        }
        pointer = bio
        bytes = copy
    }

    deinit {
        BIO_free(pointer)
        bytes?.deallocate()
    }
}
