import Foundation

/// How an app reaches Firebase Cloud Messaging (HTTP v1): a Google service account, uploaded as
/// the JSON Google issues, or (admin only) a file on the server.
///
/// ```json
/// {"serviceAccount": {"type": "service_account", "project_id": "demo", "client_email": "…",
///                     "private_key": "-----BEGIN PRIVATE KEY-----…", "token_uri": "https://oauth2.googleapis.com/token"}}
/// ```
public struct FCMSettings: Codable, Hashable, Sendable {
    /// The service account: its JSON as content, or a file path.
    public var serviceAccount: ServiceAccountSource
    /// Where messages go; `https://fcm.googleapis.com` when nil. Admin only.
    public var endpoint: String?
    /// A CA file that signs the endpoint and the token endpoint, instead of the system roots. Admin only.
    public var caFile: String?

    public static let defaultEndpoint = "https://fcm.googleapis.com"
    public static let googleTokenURI = "https://oauth2.googleapis.com/token"
    /// The scope an FCM access token needs.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    public enum ServiceAccountSource: Hashable, Sendable {
        case content(ServiceAccount)
        case file(String)
    }

    /// The fields of a Google service-account key file that Herald uses.
    public struct ServiceAccount: Codable, Hashable, Sendable {
        public var projectID: String
        public var clientEmail: String
        public var privateKey: String
        public var privateKeyID: String?
        public var tokenURI: String

        public init(projectID: String, clientEmail: String, privateKey: String, privateKeyID: String? = nil,
                    tokenURI: String = FCMSettings.googleTokenURI) {
            self.projectID = projectID
            self.clientEmail = clientEmail
            self.privateKey = privateKey
            self.privateKeyID = privateKeyID
            self.tokenURI = tokenURI
        }

        enum CodingKeys: String, CodingKey {
            case projectID = "project_id", clientEmail = "client_email", privateKey = "private_key"
            case privateKeyID = "private_key_id", tokenURI = "token_uri"
        }

        /// Reads a key file's JSON. Throws `invalidFCMServiceAccount` when a field Herald needs is missing.
        public static func parse(_ data: Data) throws(HeraldError) -> ServiceAccount {
            guard let account = try? JSONDecoder().decode(ServiceAccount.self, from: data) else {
                throw .invalid(.invalidFCMServiceAccount,
                               "fcm.serviceAccount must be a service-account key with project_id, client_email, private_key and token_uri")
            }
            return try account.validated()
        }

        func validated() throws(HeraldError) -> ServiceAccount {
            guard !projectID.isEmpty, projectID.utf8.allSatisfy({ $0 != UInt8(ascii: "/") && $0 > 32 }),
                  clientEmail.contains("@"), privateKey.contains("PRIVATE KEY"),
                  let url = URL(string: tokenURI), url.scheme == "https", url.host != nil
            else {
                throw .invalid(.invalidFCMServiceAccount,
                               "fcm.serviceAccount needs project_id, client_email, a PEM private_key and an https token_uri")
            }
            return self
        }
    }

    public init(serviceAccount: ServiceAccountSource, endpoint: String? = nil, caFile: String? = nil) {
        self.serviceAccount = serviceAccount
        self.endpoint = endpoint
        self.caFile = caFile
    }

    enum CodingKeys: String, CodingKey { case serviceAccount, serviceAccountFile, endpoint, caFile }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let account = try container.decodeIfPresent(ServiceAccount.self, forKey: .serviceAccount)
        let file = try container.decodeIfPresent(String.self, forKey: .serviceAccountFile)
        switch (account, file) {
        case (let account?, nil): serviceAccount = .content(account)
        case (nil, let file?): serviceAccount = .file(file)
        default:
            throw DecodingError.dataCorruptedError(forKey: .serviceAccount, in: container,
                                                   debugDescription: "fcm needs serviceAccount (the key file's JSON) or serviceAccountFile, one of them")
        }
        endpoint = try container.decodeIfPresent(String.self, forKey: .endpoint)
        caFile = try container.decodeIfPresent(String.self, forKey: .caFile)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch serviceAccount {
        case .content(let account): try container.encode(account, forKey: .serviceAccount)
        case .file(let path): try container.encode(path, forKey: .serviceAccountFile)
        }
        try container.encodeIfPresent(endpoint, forKey: .endpoint)
        try container.encodeIfPresent(caFile, forKey: .caFile)
    }

    /// The service account, read from its file when it is one.
    public func account() throws(HeraldError) -> ServiceAccount {
        switch serviceAccount {
        case .content(let account): return try account.validated()
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .invalid(.invalidFCMServiceAccount, "cannot read the service-account file \(path)")
            }
            return try ServiceAccount.parse(data)
        }
    }

    /// The messages endpoint's origin, checked: `https://host[:port]`.
    public func messagesEndpoint() throws(HeraldError) -> (host: String, port: Int) {
        try Self.httpsHost(endpoint ?? Self.defaultEndpoint, field: "fcm.endpoint")
    }

    static func httpsHost(_ text: String, field: String) throws(HeraldError) -> (host: String, port: Int) {
        guard let url = URL(string: text), url.scheme == "https", let host = url.host, !host.isEmpty else {
            throw .invalid(.invalidFCMSettings, "\(field) must be an https URL")
        }
        return (host, url.port ?? 443)
    }

    /// What only an admin may set: a file, another endpoint, another token endpoint, a CA.
    public func adminOnlyFields() throws(HeraldError) -> [String] {
        var fields: [String] = []
        if case .file = serviceAccount { fields.append("fcm.serviceAccountFile") }
        if endpoint != nil, endpoint != Self.defaultEndpoint { fields.append("fcm.endpoint") }
        if caFile != nil { fields.append("fcm.caFile") }
        if case .content(let account) = serviceAccount, account.tokenURI != Self.googleTokenURI {
            fields.append("fcm.serviceAccount.token_uri")
        }
        return fields
    }

    /// Checks the shape; the key is loaded by the gateway.
    public func validate() throws(HeraldError) {
        _ = try messagesEndpoint()
        let account = try account()
        _ = try Self.httpsHost(account.tokenURI, field: "fcm.serviceAccount.token_uri")
    }

    /// Every file these settings name.
    public var filePaths: [String] {
        var paths = caFile.map { [$0] } ?? []
        if case .file(let path) = serviceAccount { paths.append(path) }
        return paths
    }
}
