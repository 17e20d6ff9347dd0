import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// Owns one SSL object wired to two memory BIOs. The event loop moves ciphertext between the
/// socket and the BIOs itself, so OpenSSL never touches the descriptor: writes can be batched
/// into one send(2), and a closed peer yields EPIPE instead of SIGPIPE.
final class TLSConnection {
    let context: TLSContext
    private let ssl: OpaquePointer
    /// Ciphertext from the network, read by OpenSSL. Owned by `ssl`.
    private let networkIn: OpaquePointer
    /// Ciphertext produced by OpenSSL, to be sent. Owned by `ssl`.
    private let networkOut: OpaquePointer
    private let expectedHost: String?
    /// Client side: which cached session this connection may offer and where the server's new
    /// sessions go; nil (server side, or a context without a peer address) means neither.
    private let sessionKey: TLSSessionCache.Key?
    /// Whether a cached session went into the ClientHello.
    private(set) var offeredSession = false
    private var handshakeFinished = false

    enum HandshakeState {
        case complete
        case inProgress
        case failed(HTTP2Error)
    }

    enum ReadResult {
        case bytes(Int)
        case needMoreInput
        case closed
        case failed(HTTP2Error)
    }

    /// - Parameter serverName: client side only; used for SNI and host-name verification.
    init(context: TLSContext, serverName: String?) throws(HTTP2Error) {
        guard let ssl = SSL_new(context.pointer) else { throw .tls("SSL_new failed: \(TLSContext.drainErrors())") }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .tls("BIO_new failed")
        }
        // An empty memory BIO must mean "retry later", not end-of-file.
        _ = herald_BIO_set_mem_eof_return(input, -1)
        _ = herald_BIO_set_mem_eof_return(output, -1)
        SSL_set_bio(ssl, input, output)
        self.ssl = ssl
        self.networkIn = input
        self.networkOut = output
        self.context = context
        self.expectedHost = serverName
        if !context.isServer, context.sessionCache != nil, let address = context.peerAddress {
            sessionKey = TLSSessionCache.Key(address: address, serverName: serverName ?? "")
        } else {
            sessionKey = nil
        }

        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let name = serverName, !name.isEmpty {
                if TLSConnection.isIPAddress(name) {
                    // SNI must not carry IP literals; verify the IP SAN instead.
                    if context.verifyPeer, X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) != 1 {
                        throw .tls("cannot verify IP address \(name): \(TLSContext.drainErrors())")
                    }
                } else {
                    _ = herald_SSL_set_tlsext_host_name(ssl, name)
                    if context.verifyPeer, SSL_set1_host(ssl, name) != 1 {
                        throw .tls("cannot set expected host name \(name): \(TLSContext.drainErrors())")
                    }
                }
            }
            offerCachedSession()
        }
    }

    deinit { SSL_free(ssl) }

    /// Client side: lets the session callback find this connection, and offers the session the
    /// cache holds for exactly this address and server name. The SSL_CTX, and with it the trust
    /// roots and verification mode, is the one the session was verified under; OpenSSL keeps the
    /// verified peer chain in the session.
    private func offerCachedSession() {
        guard let sessionKey, let cache = context.sessionCache else { return }
        // `ssl` never outlives `self` (deinit frees it), so the unretained pointer stays valid.
        _ = herald_SSL_set_app_data(ssl, Unmanaged.passUnretained(self).toOpaque())
        guard let session = cache.sessionToOffer(for: sessionKey) else { return }
        if SSL_set_session(ssl, session) == 1 {
            offeredSession = true
        } else {
            ERR_clear_error()  // an unusable session only costs the full handshake
        }
        SSL_SESSION_free(session)  // SSL_set_session took its own reference
    }

    /// Called from OpenSSL's new-session callback (during the handshake, or while reading a
    /// TLS 1.3 NewSessionTicket). True: the cache took over the session's reference.
    func sessionReceived(_ session: OpaquePointer) -> Bool {
        guard let sessionKey, let cache = context.sessionCache else { return false }
        cache.store(session, for: sessionKey)
        return true
    }

    /// Whether the completed handshake resumed an earlier session (no certificate exchange).
    var resumedSession: Bool { SSL_session_reused(ssl) == 1 }

    /// Hands ciphertext received from the socket to OpenSSL.
    func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = BIO_write(networkIn, base, Int32(bytes.count))
    }

    func handshake() -> HandshakeState {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            if !handshakeFinished {
                handshakeFinished = true
                if sessionKey != nil { context.sessionCache?.recordHandshake(resumed: resumedSession) }
            }
            return .complete
        }
        let error = SSL_get_error(ssl, rc)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .inProgress }
        return .failed(.tls(handshakeFailureMessage()))
    }

    private func handshakeFailureMessage() -> String {
        let verifyResult = SSL_get_verify_result(ssl)
        let queue = TLSContext.drainErrors()
        if !context.isServer, verifyResult != X509_V_OK {
            var text = "certificate verification failed: \(String(cString: X509_verify_cert_error_string(verifyResult)))"
            if verifyResult == X509_V_ERR_HOSTNAME_MISMATCH || verifyResult == X509_V_ERR_IP_ADDRESS_MISMATCH,
               let expectedHost {
                text += " (the certificate is not valid for \(expectedHost))"
            }
            return text
        }
        return "handshake failed: \(queue)"
    }

    /// Decrypted application data, or why there is none right now.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if n > 0 { return .bytes(Int(n)) }
        switch SSL_get_error(ssl, n) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .needMoreInput
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: return .failed(.tls("read failed: \(TLSContext.drainErrors())"))
        }
    }

    /// Encrypts into the output BIO; a memory BIO grows, so this never blocks or writes partially.
    func write(_ bytes: UnsafeRawBufferPointer) -> HTTP2Error? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        ERR_clear_error()
        let n = SSL_write(ssl, base, Int32(bytes.count))
        if n == Int32(bytes.count) { return nil }
        return .tls("write failed: \(TLSContext.drainErrors())")
    }

    /// Sends close_notify; the alert ends up in the output BIO like any other record.
    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    var hasPendingOutput: Bool { herald_BIO_pending(networkOut) > 0 }

    /// Moves produced ciphertext into `buffer` for the socket.
    func drainOutput(into buffer: inout [UInt8]) {
        var pending = herald_BIO_pending(networkOut)
        while pending > 0 {
            let oldCount = buffer.count
            let count = Int(pending)
            buffer.append(contentsOf: repeatElement(0, count: count))
            let n = buffer.withUnsafeMutableBytes { raw in
                BIO_read(networkOut, raw.baseAddress! + oldCount, Int32(count))
            }
            buffer.removeLast(count - max(0, Int(n)))
            if n <= 0 { break }
            pending = herald_BIO_pending(networkOut)
        }
    }

    var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The verified peer certificate's subject in RFC 2253 form (e.g. "CN=x,O=y"), if any.
    var peerCertificateSubject: String? {
        guard let certificate = herald_SSL_get_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        guard let name = X509_get_subject_name(certificate), let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, herald_XN_FLAG_RFC2253()) >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(herald_BIO_pending(bio)))
        let n = BIO_read(bio, &bytes, Int32(bytes.count))
        return String(decoding: bytes.prefix(max(0, Int(n))), as: UTF8.self)
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
