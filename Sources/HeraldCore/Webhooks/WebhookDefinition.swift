/// An inbound webhook, `POST /v1/hooks/{name}`: who may call it (the secrets) and what it pushes.
///
/// Signature checking lives in HeraldCrypto (`WebhookSignature`), since the core has no OpenSSL;
/// this type only holds and checks the definition.
public struct WebhookDefinition: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Appears in the URL path, so it follows ``Identifier`` rules.
    public var name: String
    /// Every secret currently accepted; more than one while a rotation is under way.
    public var secrets: [String]
    /// The bundle id of the app the pushes go to.
    public var app: String
    public var template: PushTemplate
    /// How far a signature's timestamp may be from now; nil for the default.
    public var toleranceSeconds: Int?

    /// Five minutes, matching `WebhookSignature.defaultToleranceSeconds` in HeraldCrypto.
    public static let defaultToleranceSeconds = 300
    /// A day: a longer window lets a captured request be replayed for longer, and idempotency keys
    /// would have to be kept at least that long to stop the replay.
    public static let maximumToleranceSeconds = 86_400
    /// 16 bytes (128 bits if random): shorter secrets can be guessed offline from one signed request.
    public static let minimumSecretBytes = 16

    public init(name: String, secrets: [String], app: String, template: PushTemplate, toleranceSeconds: Int? = nil) {
        self.name = name
        self.secrets = secrets
        self.app = app
        self.template = template
        self.toleranceSeconds = toleranceSeconds
    }

    /// The tolerance to verify with.
    public var tolerance: Int { toleranceSeconds ?? Self.defaultToleranceSeconds }

    /// Throws `invalidId` (name, app), `missingWebhookSecret`, `weakWebhookSecret`,
    /// `invalidTolerance`, or the template's `invalidTemplate`.
    public func validate() throws(HeraldError) {
        try Identifier.validate(name, field: "name")
        try Identifier.validate(app, field: "app")
        guard !secrets.isEmpty else {
            throw .invalid(.missingWebhookSecret, "webhook \(name) needs at least one secret")
        }
        // The message gives the position, never the secret itself.
        if let index = secrets.firstIndex(where: { $0.utf8.count < Self.minimumSecretBytes }) {
            throw .invalid(.weakWebhookSecret,
                           "webhook \(name): secret \(index + 1) is shorter than \(Self.minimumSecretBytes) bytes")
        }
        if let toleranceSeconds, !(1...Self.maximumToleranceSeconds).contains(toleranceSeconds) {
            throw .invalid(.invalidTolerance,
                           "webhook \(name): toleranceSeconds must be 1–\(Self.maximumToleranceSeconds), not \(toleranceSeconds)")
        }
        try template.validate()
    }

    /// Secrets are masked so a definition can be logged or interpolated safely.
    public var description: String {
        "WebhookDefinition(name: \(name), app: \(app), secrets: \(secrets.count) hidden, tolerance: \(tolerance)s)"
    }
}
