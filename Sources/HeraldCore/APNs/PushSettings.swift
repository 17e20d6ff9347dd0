import Foundation

/// How an app reaches APNs: which environment, and with which credentials.
///
/// Credentials are either files the operator put on the server (named by an admin only) or
/// content uploaded through the API (a `.p8` key, a PEM certificate and key, or a PKCS#12
/// bundle). The `Codable` form is the stored form and holds every secret; what the API shows is
/// ``masked``.
///
/// ```json
/// {"environment": "production",
///  "auth": {"type": "token", "teamId": "ABCDE12345", "keyId": "KEY1234567", "key": "-----BEGIN PRIVATE KEY-----..."}}
/// ```
public struct PushSettings: Codable, Hashable, Sendable {
    /// `production`, `sandbox`, or `https://host:port` (the local sandbox gateway, say).
    public var environment: String
    /// A CA file to trust instead of the system roots, for custom environments.
    public var caFile: String?
    public var auth: Auth
    /// Where broadcast channels are managed: `production`, `sandbox` or `https://host:port`.
    /// nil follows ``environment``.
    public var channelsEnvironment: String?

    /// What stands in for a secret in every answer. Sent back unchanged in a `PUT`, it keeps the
    /// stored secret.
    public static let mask = "********"

    public enum Auth: Codable, Hashable, Sendable {
        /// A provider-token key (`.p8`), from a file or as PEM text.
        case token(teamId: String, keyId: String, key: Credential)
        /// A client certificate: PEM certificate (with its key, in the same file or apart), or a
        /// PKCS#12 bundle with its password.
        case certificate(ClientIdentity)

        enum CodingKeys: String, CodingKey {
            case type, teamId, keyId, keyFile, key, certFile, certificate, privateKey, pkcs12, password
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            switch try container.decode(String.self, forKey: .type) {
            case "token":
                let key = try Self.credential(in: container, file: .keyFile, content: .key, field: "auth.key")
                guard let key else {
                    throw DecodingError.keyNotFound(CodingKeys.key, .init(codingPath: container.codingPath,
                                                                          debugDescription: "token auth needs key (PEM text) or keyFile"))
                }
                self = .token(teamId: try container.decode(String.self, forKey: .teamId),
                              keyId: try container.decode(String.self, forKey: .keyId), key: key)
            case "certificate":
                self = .certificate(try ClientIdentity(from: container))
            case let other:
                throw DecodingError.dataCorruptedError(forKey: .type, in: container,
                                                       debugDescription: "auth.type '\(other)' is not token or certificate")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .token(let teamId, let keyId, let key):
                try container.encode("token", forKey: .type)
                try container.encode(teamId, forKey: .teamId)
                try container.encode(keyId, forKey: .keyId)
                try key.encode(in: &container, file: .keyFile, content: .key)
            case .certificate(let identity):
                try container.encode("certificate", forKey: .type)
                try identity.encode(in: &container)
            }
        }

        /// Exactly one of a file key and a content key, or neither.
        static func credential(in container: KeyedDecodingContainer<CodingKeys>, file: CodingKeys, content: CodingKeys,
                               field: String) throws -> Credential? {
            let path = try container.decodeIfPresent(String.self, forKey: file)
            let text = try container.decodeIfPresent(String.self, forKey: content)
            switch (path, text) {
            case (let path?, nil): return .file(path)
            case (nil, let text?): return .content(text)
            case (nil, nil): return nil
            case (_?, _?):
                throw DecodingError.dataCorruptedError(forKey: content, in: container,
                                                       debugDescription: "give \(field) as content or as a file, not both")
            }
        }
    }

    /// A secret that is either a file on the server or uploaded content.
    public enum Credential: Hashable, Sendable {
        case file(String)
        case content(String)

        public var path: String? {
            if case .file(let path) = self { return path }
            return nil
        }

        func encode(in container: inout KeyedEncodingContainer<Auth.CodingKeys>, file: Auth.CodingKeys,
                    content: Auth.CodingKeys) throws {
            switch self {
            case .file(let path): try container.encode(path, forKey: file)
            case .content(let text): try container.encode(text, forKey: content)
            }
        }
    }

    /// A TLS client identity for certificate auth.
    public enum ClientIdentity: Hashable, Sendable {
        /// A PEM certificate (chain) and its PEM private key; `key` nil means the key is in the
        /// certificate file.
        case pem(certificate: Credential, key: Credential?)
        /// A PKCS#12 bundle: a `.p12` file, or its bytes as base64.
        case pkcs12(Credential, password: String?)

        init(from container: KeyedDecodingContainer<Auth.CodingKeys>) throws {
            let password = try container.decodeIfPresent(String.self, forKey: .password)
            let bundle = try container.decodeIfPresent(String.self, forKey: .pkcs12)
            let certificate = try Auth.credential(in: container, file: .certFile, content: .certificate, field: "auth.certificate")
            let key = try Auth.credential(in: container, file: .keyFile, content: .privateKey, field: "auth.privateKey")
            switch (bundle, certificate) {
            case (let bundle?, nil) where key == nil:
                self = .pkcs12(.content(bundle), password: password)
            case (nil, .file(let path)?) where Self.isPKCS12File(path):
                self = .pkcs12(.file(path), password: password)
            case (nil, let certificate?):
                if case .content = certificate, key == nil {
                    throw DecodingError.keyNotFound(Auth.CodingKeys.privateKey, .init(
                        codingPath: container.codingPath, debugDescription: "an uploaded certificate needs its privateKey"))
                }
                self = .pem(certificate: certificate, key: key)
            case (nil, nil):
                throw DecodingError.keyNotFound(Auth.CodingKeys.certificate, .init(
                    codingPath: container.codingPath,
                    debugDescription: "certificate auth needs certificate and privateKey (PEM), pkcs12 (base64), or certFile"))
            default:
                throw DecodingError.dataCorruptedError(forKey: .pkcs12, in: container,
                                                       debugDescription: "give pkcs12 alone, or certificate with privateKey")
            }
        }

        func encode(in container: inout KeyedEncodingContainer<Auth.CodingKeys>) throws {
            switch self {
            case .pem(let certificate, let key):
                try certificate.encode(in: &container, file: .certFile, content: .certificate)
                try key?.encode(in: &container, file: .keyFile, content: .privateKey)
            case .pkcs12(let bundle, let password):
                try bundle.encode(in: &container, file: .certFile, content: .pkcs12)
                try container.encodeIfPresent(password, forKey: .password)
            }
        }

        static func isPKCS12File(_ path: String) -> Bool {
            path.hasSuffix(".p12") || path.hasSuffix(".pfx")
        }
    }

    public init(environment: String, caFile: String? = nil, auth: Auth) {
        self.environment = environment
        self.caFile = caFile
        self.auth = auth
    }

    /// The two environments Apple runs; anything else is a custom `https://` host.
    public static let appleEnvironments: Set<String> = ["production", "sandbox", "development"]

    /// True for a custom `https://host:port` environment rather than one of Apple's.
    public var usesCustomEnvironment: Bool { !Self.appleEnvironments.contains(environment) }

    /// Where pushes go: host and port.
    public func endpoint() throws(HeraldError) -> (host: String, port: Int) {
        switch environment {
        case "production": return ("api.push.apple.com", 443)
        case "sandbox", "development": return ("api.sandbox.push.apple.com", 443)
        default:
            guard let url = URL(string: environment), url.scheme == "https", let host = url.host, !host.isEmpty else {
                throw .invalid(.invalidPushEnvironment, "push.environment must be production, sandbox or https://host:port")
            }
            return (host, url.port ?? 443)
        }
    }

    /// Where broadcast channels are created, read and deleted (APNs' channel management API):
    /// from ``channelsEnvironment``, else from ``environment``. A custom host serves both.
    public func channelsEndpoint() throws(HeraldError) -> (host: String, port: Int) {
        switch channelsEnvironment ?? environment {
        case "production": return ("api-manage-broadcast.push.apple.com", 2196)
        case "sandbox", "development": return ("api-manage-broadcast.sandbox.push.apple.com", 2195)
        case let custom:
            guard let url = URL(string: custom), url.scheme == "https", let host = url.host, !host.isEmpty else {
                throw .invalid(.invalidPushEnvironment, "push.channelsEnvironment must be production, sandbox or https://host:port")
            }
            return (host, url.port ?? 443)
        }
    }

    /// True when pushes are signed with a provider token, as Live Activities and broadcast
    /// channels require.
    public var usesTokenAuth: Bool {
        if case .token = auth { return true }
        return false
    }

    /// Every file these settings name: key, certificate and CA files.
    public var filePaths: [String] {
        var paths: [String] = caFile.map { [$0] } ?? []
        switch auth {
        case .token(_, _, let key): paths += [key.path].compactMap { $0 }
        case .certificate(.pem(let certificate, let key)): paths += [certificate.path, key?.path].compactMap { $0 }
        case .certificate(.pkcs12(let bundle, _)): paths += [bundle.path].compactMap { $0 }
        }
        return paths
    }

    /// Checks the shape; files are checked by the gateway when it loads them.
    public func validate() throws(HeraldError) {
        _ = try endpoint()
        _ = try channelsEndpoint()
        if case .token(let teamId, let keyId, _) = auth {
            guard teamId.count == 10, keyId.count == 10,
                  (teamId + keyId).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            else {
                throw .invalid(.invalidPushCredentials, "teamId and keyId are the 10-character ids Apple issues")
            }
        }
    }

    /// What only an admin may set: a file path, or a custom environment. Empty when an app key
    /// may store these settings.
    public var adminOnlyFields: [String] {
        var fields: [String] = []
        if usesCustomEnvironment { fields.append("environment") }
        if let channelsEnvironment, !Self.appleEnvironments.contains(channelsEnvironment) { fields.append("channelsEnvironment") }
        if caFile != nil { fields.append("caFile") }
        switch auth {
        case .token(_, _, .file): fields.append("auth.keyFile")
        case .token: break
        case .certificate(.pem(let certificate, let key)):
            if certificate.path != nil { fields.append("auth.certFile") }
            if key?.path != nil { fields.append("auth.keyFile") }
        case .certificate(.pkcs12(let bundle, _)):
            if bundle.path != nil { fields.append("auth.certFile") }
        }
        return fields
    }

    /// The settings as the API shows them: every uploaded secret and password replaced by
    /// ``mask``; file paths and ids stay.
    public var masked: PushSettings {
        var copy = self
        switch auth {
        case .token(let teamId, let keyId, let key):
            copy.auth = .token(teamId: teamId, keyId: keyId, key: key.masked)
        case .certificate(.pem(let certificate, let key)):
            copy.auth = .certificate(.pem(certificate: certificate.masked, key: key?.masked))
        case .certificate(.pkcs12(let bundle, let password)):
            copy.auth = .certificate(.pkcs12(bundle.masked, password: password.map { _ in Self.mask }))
        }
        return copy
    }

    /// These settings with every ``mask`` placeholder replaced by the secret `stored` holds in
    /// the same place, so a client can send back what it read. Throws `invalidPushCredentials`
    /// when a placeholder has no stored secret behind it.
    public func restoringMaskedSecrets(from stored: PushSettings?) throws(HeraldError) -> PushSettings {
        func restore(_ credential: Credential, _ old: Credential?) throws(HeraldError) -> Credential {
            guard credential == .content(Self.mask) else { return credential }
            guard let old, case .content = old else {
                throw .invalid(.invalidPushCredentials, "a masked secret was sent, but no secret is stored in its place")
            }
            return old
        }
        var copy = self
        switch (auth, stored?.auth) {
        case (.token(let teamId, let keyId, let key), .token(_, _, let old)?):
            copy.auth = .token(teamId: teamId, keyId: keyId, key: try restore(key, old))
        case (.token(let teamId, let keyId, let key), _):
            copy.auth = .token(teamId: teamId, keyId: keyId, key: try restore(key, nil))
        case (.certificate(.pem(let certificate, let key)), let old):
            var oldCertificate: Credential?
            var oldKey: Credential?
            if case .certificate(.pem(let storedCertificate, let storedKey))? = old {
                (oldCertificate, oldKey) = (storedCertificate, storedKey)
            }
            var restoredKey: Credential?
            if let key { restoredKey = try restore(key, oldKey) }
            copy.auth = .certificate(.pem(certificate: try restore(certificate, oldCertificate), key: restoredKey))
        case (.certificate(.pkcs12(let bundle, let password)), let old):
            var oldBundle: Credential?
            var oldPassword: String?
            if case .certificate(.pkcs12(let storedBundle, let storedPassword))? = old {
                (oldBundle, oldPassword) = (storedBundle, storedPassword)
            }
            var restoredPassword = password
            if password == Self.mask {
                guard let oldPassword else {
                    throw .invalid(.invalidPushCredentials, "a masked password was sent, but no password is stored")
                }
                restoredPassword = oldPassword
            }
            copy.auth = .certificate(.pkcs12(try restore(bundle, oldBundle), password: restoredPassword))
        }
        return copy
    }
}

extension PushSettings.Credential {
    /// Content becomes the mask; a path is not secret and stays.
    var masked: Self {
        if case .content = self { return .content(PushSettings.mask) }
        return self
    }
}
