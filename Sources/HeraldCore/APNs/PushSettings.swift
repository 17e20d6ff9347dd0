import Foundation

/// How an app reaches APNs: which environment, and with which credentials.
///
/// Paths, not secrets, are stored: key and certificate files stay where the operator put them.
public struct PushSettings: Codable, Hashable, Sendable {
    /// `production`, `sandbox`, or `https://host:port` (the local sandbox gateway, say).
    public var environment: String
    /// A CA file to trust instead of the system roots, for custom environments.
    public var caFile: String?
    public var auth: Auth

    public enum Auth: Codable, Hashable, Sendable {
        case token(teamId: String, keyId: String, keyFile: String)
        case certificate(certFile: String, keyFile: String?, password: String?)

        enum CodingKeys: String, CodingKey { case type, teamId, keyId, keyFile, certFile, password }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            switch try container.decode(String.self, forKey: .type) {
            case "token":
                self = .token(teamId: try container.decode(String.self, forKey: .teamId),
                              keyId: try container.decode(String.self, forKey: .keyId),
                              keyFile: try container.decode(String.self, forKey: .keyFile))
            case "certificate":
                self = .certificate(certFile: try container.decode(String.self, forKey: .certFile),
                                    keyFile: try container.decodeIfPresent(String.self, forKey: .keyFile),
                                    password: try container.decodeIfPresent(String.self, forKey: .password))
            case let other:
                throw DecodingError.dataCorruptedError(forKey: .type, in: container,
                                                       debugDescription: "auth.type '\(other)' is not token or certificate")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .token(let teamId, let keyId, let keyFile):
                try container.encode("token", forKey: .type)
                try container.encode(teamId, forKey: .teamId)
                try container.encode(keyId, forKey: .keyId)
                try container.encode(keyFile, forKey: .keyFile)
            case .certificate(let certFile, let keyFile, let password):
                try container.encode("certificate", forKey: .type)
                try container.encode(certFile, forKey: .certFile)
                try container.encodeIfPresent(keyFile, forKey: .keyFile)
                // The password itself is never written back out.
                try container.encodeIfPresent(password.map { _ in "********" }, forKey: .password)
            }
        }
    }

    public init(environment: String, caFile: String? = nil, auth: Auth) {
        self.environment = environment
        self.caFile = caFile
        self.auth = auth
    }

    /// Where pushes go: host and port.
    public func endpoint() throws(HeraldError) -> (host: String, port: Int) {
        switch environment {
        case "production": return ("api.push.apple.com", 443)
        case "sandbox", "development": return ("api.sandbox.push.apple.com", 443)
        default:
            guard let url = URL(string: environment), url.scheme == "https", let host = url.host else {
                throw .invalid("invalidPushEnvironment", "push.environment must be production, sandbox or https://host:port")
            }
            return (host, url.port ?? 443)
        }
    }

    /// Checks the shape; files are checked by the gateway when it loads them.
    public func validate() throws(HeraldError) {
        _ = try endpoint()
        if case .token(let teamId, let keyId, _) = auth {
            guard teamId.count == 10, keyId.count == 10,
                  (teamId + keyId).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            else {
                throw .invalid("invalidPushCredentials", "teamId and keyId are the 10-character ids Apple issues")
            }
        }
    }
}
