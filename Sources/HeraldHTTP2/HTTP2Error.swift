/// Every failure the HTTP/2 layer reports. Callers (the APNs gateway) decide on retries from the
/// case alone, so "was the request processed?" is encoded in the case, not in a message.
public enum HTTP2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer certainly did not process the request (stream above GOAWAY's last-stream-id,
    /// REFUSED_STREAM, or never sent); it is safe to retry on another connection.
    case notProcessed(String)
    /// The request's deadline passed before a complete response arrived.
    case timeout
    /// The connection ended while the request was in flight; the peer may have processed it.
    case connectionClosed(String)
    /// The peer reset the stream with this HTTP/2 error code.
    case streamReset(UInt32)
    /// TLS setup or handshake failed; the message comes from OpenSSL.
    case tls(String)
    /// The peer did not select "h2" during ALPN.
    case alpnNotNegotiated(selected: String?)
    /// The TCP connection (or the handshake within the connect timeout) could not be established.
    case connectFailed(String)
    /// Too many requests are already waiting for a free stream.
    case queueFull(limit: Int)
    /// The peer violated HTTP/2, or nghttp2 reported an internal failure.
    case protocolError(String)
    /// A configuration value is unusable (missing file, bad password, bad address).
    case invalidConfiguration(String)
    /// The caller gave up on the request (its task was cancelled); its stream, if any, was reset.
    case cancelled

    /// True when resending on a fresh connection cannot cause a duplicate.
    public var isSafeToRetry: Bool {
        if case .notProcessed = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .notProcessed(let reason): return "request not processed by the server (safe to retry): \(reason)"
        case .timeout: return "request timed out"
        case .connectionClosed(let reason): return "connection closed: \(reason)"
        case .streamReset(let code): return "stream reset by peer with HTTP/2 error code \(code) (\(HTTP2Error.errorCodeName(code)))"
        case .tls(let message): return "TLS error: \(message)"
        case .alpnNotNegotiated(let selected):
            return "the server did not negotiate HTTP/2 via ALPN (selected: \(selected ?? "none"))"
        case .connectFailed(let message): return "connect failed: \(message)"
        case .queueFull(let limit): return "too many requests waiting for a stream (queue limit \(limit))"
        case .protocolError(let message): return "HTTP/2 protocol error: \(message)"
        case .invalidConfiguration(let message): return "invalid configuration: \(message)"
        case .cancelled: return "request cancelled by the caller"
        }
    }

    /// RFC 9113 section 7 names, so logs say REFUSED_STREAM rather than 7.
    public static func errorCodeName(_ code: UInt32) -> String {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
                     "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
                     "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
                     "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        return Int(code) < names.count ? names[Int(code)] : "UNKNOWN"
    }
}
