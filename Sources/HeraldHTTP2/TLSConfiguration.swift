/// Client-side TLS settings. Secure by default: peer verification on, TLS 1.2 minimum, and ALPN
/// that offers and requires "h2", because APNs speaks nothing else.
public struct TLSConfiguration: Sendable {
    /// Where trusted CA certificates come from.
    public enum TrustRoots: Sendable {
        case system
        /// A PEM file holding one or more CA certificates (e.g. the sandbox dev CA).
        case caFile(String)
    }

    /// A client identity, for APNs certificate-based authentication.
    public enum ClientCertificate: Sendable {
        /// PEM certificate (chain) and PEM private key files.
        case pem(certificateFile: String, keyFile: String)
        /// A PKCS#12 bundle, as exported from Keychain Access.
        case pkcs12(file: String, password: String)
        /// PEM certificate (chain) and PEM private key held in memory (uploaded credentials).
        case pemContent(certificate: String, key: String)
        /// A PKCS#12 bundle's bytes held in memory.
        case pkcs12Content([UInt8], password: String)
    }

    public var trustRoots: TrustRoots
    public var clientCertificate: ClientCertificate?
    /// Name used for SNI and certificate host-name checks; defaults to the host passed to connect.
    public var serverName: String?
    /// Turning this off is only for debugging; never ship it disabled.
    public var verifyPeer: Bool
    public var minimumVersion: TLSVersion
    /// Offered ALPN protocols, in preference order; "h2" must be among them and selected.
    public var alpnProtocols: [String]

    public init(trustRoots: TrustRoots = .system, clientCertificate: ClientCertificate? = nil,
                serverName: String? = nil, verifyPeer: Bool = true, minimumVersion: TLSVersion = .tls12,
                alpnProtocols: [String] = ["h2"]) {
        self.trustRoots = trustRoots
        self.clientCertificate = clientCertificate
        self.serverName = serverName
        self.verifyPeer = verifyPeer
        self.minimumVersion = minimumVersion
        self.alpnProtocols = alpnProtocols
    }
}

/// Server-side TLS settings (used by the sandbox APNs server and tests).
public struct TLSServerConfiguration: Sendable {
    public var certificateFile: String
    public var keyFile: String
    /// When set, clients are asked for a certificate and it must chain to this CA.
    public var clientCAFile: String?
    /// Reject clients that present no certificate (only meaningful with `clientCAFile`).
    public var requireClientCertificate: Bool
    public var minimumVersion: TLSVersion
    /// Protocols the server is willing to select, in preference order.
    public var alpnProtocols: [String]

    public init(certificateFile: String, keyFile: String, clientCAFile: String? = nil,
                requireClientCertificate: Bool = false, minimumVersion: TLSVersion = .tls12,
                alpnProtocols: [String] = ["h2"]) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.clientCAFile = clientCAFile
        self.requireClientCertificate = requireClientCertificate
        self.minimumVersion = minimumVersion
        self.alpnProtocols = alpnProtocols
    }
}

/// Lowest protocol version accepted; HTTP/2 forbids anything older than TLS 1.2.
public enum TLSVersion: Sendable {
    case tls12
    case tls13
}

extension TLSConfiguration {
    /// Loads everything this configuration names (CA file, client identity) without connecting,
    /// so bad credentials are refused when they are given rather than on the first connection.
    ///
    /// - Throws: `HTTP2Error.tls` or `.invalidConfiguration`, saying what could not be loaded.
    public func check() throws(HTTP2Error) {
        _ = try TLSContext(client: self)
    }
}
