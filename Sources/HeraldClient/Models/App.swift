/// An app as the server shows it: a bundle id with its push settings. Uploaded secrets and
/// passwords are masked (`"********"`); sending the mask back in a `PUT` keeps the stored secret.
public struct HeraldApp: Codable, Sendable, Hashable, Identifiable {
    /// The bundle id, such as `com.example.alarm`.
    public var id: String
    /// What scheduling a 129th notification on a device does.
    public var overflow: OverflowPolicy
    /// The APNs settings, for ios installations.
    public var push: PushSettings?
    /// The event kinds the app declared for itself.
    public var customKinds: [CustomKind]
    /// The FCM settings, for android installations (the service account's key is never shown).
    public var fcm: FCMSettings?
    /// The Web Push settings, for web installations (the VAPID private key is never shown).
    public var webPush: WebPushSettings?

    /// Creates a `HeraldApp` from its fields.
    public init(id: String, overflow: OverflowPolicy = .reject, push: PushSettings? = nil, customKinds: [CustomKind] = [],
                fcm: FCMSettings? = nil, webPush: WebPushSettings? = nil) {
        self.id = id
        self.overflow = overflow
        self.push = push
        self.customKinds = customKinds
        self.fcm = fcm
        self.webPush = webPush
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        overflow = try container.decodeIfPresent(OverflowPolicy.self, forKey: .overflow) ?? .reject
        push = try container.decodeIfPresent(PushSettings.self, forKey: .push)
        customKinds = try container.decodeIfPresent([CustomKind].self, forKey: .customKinds) ?? []
        fcm = try container.decodeIfPresent(FCMSettings.self, forKey: .fcm)
        webPush = try container.decodeIfPresent(WebPushSettings.self, forKey: .webPush)
    }

    enum CodingKeys: String, CodingKey { case id, overflow, push, customKinds, fcm, webPush }
}

/// The body of `PUT /v1/apps/{app}`: everything about an app but its id. Absent fields mean
/// the default (no settings for a channel, `reject`, no custom kinds).
public struct AppDefinition: Codable, Sendable, Hashable {
    /// What scheduling a 129th notification on a device does.
    public var overflow: OverflowPolicy?
    /// The APNs settings.
    public var push: PushSettings?
    /// The event kinds the app declares.
    public var customKinds: [CustomKind]?
    /// The FCM settings.
    public var fcm: FCMSettingsInput?
    /// The Web Push settings.
    public var webPush: WebPushSettings?

    /// Creates a `AppDefinition` from its fields.
    public init(overflow: OverflowPolicy? = nil, push: PushSettings? = nil, customKinds: [CustomKind]? = nil,
                fcm: FCMSettingsInput? = nil, webPush: WebPushSettings? = nil) {
        self.overflow = overflow
        self.push = push
        self.customKinds = customKinds
        self.fcm = fcm
        self.webPush = webPush
    }
}

/// What scheduling a notification beyond a device's 128 does.
public enum OverflowPolicy: OpenEnum {
    /// Refuse the new notification (the default).
    case reject
    /// Keep the 128 that fire soonest, evicting the latest.
    case keepSoonest
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "reject": self = .reject
        case "keepSoonest": self = .keepSoonest
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .reject: return "reject"
        case .keepSoonest: return "keepSoonest"
        case .unknown(let value): return value
        }
    }
}

/// How an app reaches APNs: the environment and the credentials.
///
/// File paths (`keyFile`, `certFile`, `caFile`) and custom `https://` environments need an
/// admin key; an app key uploads its credentials as content.
public struct PushSettings: Codable, Sendable, Hashable {
    /// `production`, `sandbox`, or `https://host:port` (admin).
    public var environment: String
    /// Where broadcast channels are managed; nil: as ``environment``.
    public var channelsEnvironment: String?
    /// A CA file to trust (admin).
    public var caFile: String?
    /// The credentials.
    public var auth: Auth

    /// Creates a `PushSettings` from its fields.
    public init(environment: String, auth: Auth, channelsEnvironment: String? = nil, caFile: String? = nil) {
        self.environment = environment
        self.auth = auth
        self.channelsEnvironment = channelsEnvironment
        self.caFile = caFile
    }

    /// The credentials: a provider-token key (`type: token`) or a client certificate (`type: certificate`).
    public struct Auth: Codable, Sendable, Hashable {
        /// `token` or `certificate`.
        public var type: String
        /// Token auth: the 10-character team id.
        public var teamId: String?
        /// Token auth: the 10-character key id.
        public var keyId: String?
        /// Token auth: the PEM text of the `.p8` key.
        public var key: String?
        /// Token auth: the key's path on the server (admin).
        public var keyFile: String?
        /// Certificate auth: the PEM certificate.
        public var certificate: String?
        /// Certificate auth: the PEM private key.
        public var privateKey: String?
        /// Certificate auth: the certificate's path on the server (admin).
        public var certFile: String?
        /// Certificate auth: a base64 PKCS#12 bundle.
        public var pkcs12: String?
        /// Certificate auth: the PKCS#12 or key password.
        public var password: String?

        /// Creates a `Auth` from its fields.
        public init(type: String, teamId: String? = nil, keyId: String? = nil, key: String? = nil, keyFile: String? = nil,
                    certificate: String? = nil, privateKey: String? = nil, certFile: String? = nil, pkcs12: String? = nil,
                    password: String? = nil) {
            self.type = type
            self.teamId = teamId
            self.keyId = keyId
            self.key = key
            self.keyFile = keyFile
            self.certificate = certificate
            self.privateKey = privateKey
            self.certFile = certFile
            self.pkcs12 = pkcs12
            self.password = password
        }

        /// Token auth with a `.p8` key's PEM text.
        public static func token(teamId: String, keyId: String, key: String) -> Auth {
            Auth(type: "token", teamId: teamId, keyId: keyId, key: key)
        }

        /// Certificate auth with a PEM certificate and its key.
        public static func certificate(_ certificate: String, privateKey: String, password: String? = nil) -> Auth {
            Auth(type: "certificate", certificate: certificate, privateKey: privateKey, password: password)
        }
    }
}

/// The FCM settings as the server shows them: the account's project and email, never its key.
public struct FCMSettings: Codable, Sendable, Hashable {
    /// The service account's project.
    public var projectId: String?
    /// The service account's email.
    public var clientEmail: String?
    /// The service-account key file's path on the server (admin).
    public var serviceAccountFile: String?
    /// The FCM endpoint (admin, unless Google's).
    public var endpoint: String?
    /// A CA file to trust instead of the system roots (admin).
    public var caFile: String?

    /// Creates a `FCMSettings` from its fields.
    public init(projectId: String? = nil, clientEmail: String? = nil, serviceAccountFile: String? = nil,
                endpoint: String? = nil, caFile: String? = nil) {
        self.projectId = projectId
        self.clientEmail = clientEmail
        self.serviceAccountFile = serviceAccountFile
        self.endpoint = endpoint
        self.caFile = caFile
    }
}

/// The FCM settings as sent: the service-account key file's JSON as Google issues it, or
/// (admin) a file on the server, another endpoint and a CA.
public struct FCMSettingsInput: Codable, Sendable, Hashable {
    /// The service-account key file's JSON (`project_id`, `client_email`, `private_key`, `token_uri`...).
    public var serviceAccount: JSONValue?
    /// The service-account key file's path on the server (admin).
    public var serviceAccountFile: String?
    /// The FCM endpoint (admin, unless Google's).
    public var endpoint: String?
    /// A CA file to trust instead of the system roots (admin).
    public var caFile: String?

    /// Creates a `FCMSettingsInput` from its fields.
    public init(serviceAccount: JSONValue? = nil, serviceAccountFile: String? = nil, endpoint: String? = nil, caFile: String? = nil) {
        self.serviceAccount = serviceAccount
        self.serviceAccountFile = serviceAccountFile
        self.endpoint = endpoint
        self.caFile = caFile
    }
}

/// An app's Web Push settings. The server generates the VAPID key pair when none is stored;
/// ``vapidPublicKey`` is the `applicationServerKey` pages subscribe with.
public struct WebPushSettings: Codable, Sendable, Hashable {
    /// A `mailto:` or `https:` contact.
    public var subject: String
    /// The `applicationServerKey` pages subscribe with (base64url).
    public var vapidPublicKey: String?
    /// Admin only; never answered.
    public var vapidPrivateKey: String?
    /// A CA file to trust instead of the system roots (admin).
    public var caFile: String?
    /// The hosts subscription endpoints may name (admin).
    public var allowedHosts: [String]?

    /// Creates a `WebPushSettings` from its fields.
    public init(subject: String, vapidPublicKey: String? = nil, vapidPrivateKey: String? = nil, caFile: String? = nil,
                allowedHosts: [String]? = nil) {
        self.subject = subject
        self.vapidPublicKey = vapidPublicKey
        self.vapidPrivateKey = vapidPrivateKey
        self.caFile = caFile
        self.allowedHosts = allowedHosts
    }
}

/// An event kind an app declares, with the rule its events coalesce by.
public struct CustomKind: Codable, Sendable, Hashable {
    /// The name.
    public var name: String
    /// How its events coalesce.
    public var rule: Rule
    /// Whether events carry a key, each key coalescing on its own.
    public var keyed: Bool?

    /// Creates a `CustomKind` from its fields.
    public init(name: String, rule: Rule, keyed: Bool? = nil) {
        self.name = name
        self.rule = rule
        self.keyed = keyed
    }

    /// How a custom kind's events coalesce.
    public enum Rule: OpenEnum {
        /// The last value wins.
        case latest
        /// Numbers add up.
        case sum
        /// Strings or arrays of strings unite.
        case union
        /// Valueless events flip; pairs cancel.
        case toggle
        case unknown(String)

        public init(rawValue: String) {
            switch rawValue {
            case "latest": self = .latest
            case "sum": self = .sum
            case "union": self = .union
            case "toggle": self = .toggle
            default: self = .unknown(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .latest: return "latest"
            case .sum: return "sum"
            case .union: return "union"
            case .toggle: return "toggle"
            case .unknown(let value): return value
            }
        }
    }
}

/// The answer of `POST /v1/apps/{app}/doctor`: the app's push settings checked end to end.
public struct DoctorReport: Codable, Sendable, Hashable {
    /// The app's bundle id.
    public var app: String
    /// No check failed.
    public var healthy: Bool
    /// The checks, in order.
    public var checks: [Check]

    /// One check and how it went.
    public struct Check: Codable, Sendable, Hashable {
        /// `settings`, `credentials`, `providerToken`, `dns`, `apns`...
        public var name: String
        /// How it ended.
        public var outcome: Outcome
        /// What the check found.
        public var detail: String
    }

    /// How one check went.
    public enum Outcome: OpenEnum {
        case passed, failed, skipped
        case unknown(String)

        public init(rawValue: String) {
            switch rawValue {
            case "passed": self = .passed
            case "failed": self = .failed
            case "skipped": self = .skipped
            default: self = .unknown(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .passed: return "passed"
            case .failed: return "failed"
            case .skipped: return "skipped"
            case .unknown(let value): return value
            }
        }
    }
}
