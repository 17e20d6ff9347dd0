/// The body of `PUT /v1/hooks/{name}`: a signed inbound webhook that turns another system's
/// JSON into a push.
///
/// ```swift
/// let definition = HookDefinition(app: "com.example.shop", secrets: ["a-secret-of-16-chars-or-more"],
///                                 template: ["devices": "/user/id", "title": "Order {/order/id}", "body": "{/order/status}"])
/// ```
public struct HookDefinition: Codable, Sendable, Hashable {
    /// The app it pushes for.
    public var app: String
    /// The accepted signing secrets (16 characters or more each); several during a rotation.
    public var secrets: [String]
    /// How far a signature's timestamp may be from now, in seconds; nil: the server's default.
    public var toleranceSeconds: Int?
    /// The push template: JSON pointers into the hook's body (`tokens` or `devices`, `title`,
    /// `body`, `filter`, `idempotencyKey`...), as the server documents `PushTemplate`.
    public var template: JSONValue

    /// Creates a `HookDefinition` from its fields.
    public init(app: String, secrets: [String], toleranceSeconds: Int? = nil, template: JSONValue) {
        self.app = app
        self.secrets = secrets
        self.toleranceSeconds = toleranceSeconds
        self.template = template
    }
}

/// A hook as the server shows it: its secrets are counted, never shown.
public struct Hook: Codable, Sendable, Hashable {
    /// The name.
    public var name: String
    /// The app's bundle id.
    public var app: String
    /// How many secrets are set.
    public var secrets: Int
    /// How far a signature's timestamp may be from now, in seconds.
    public var toleranceSeconds: Int?
    /// The push template, as JSON.
    public var template: JSONValue

    /// Creates a `Hook` from its fields.
    public init(name: String, app: String, secrets: Int, toleranceSeconds: Int? = nil, template: JSONValue) {
        self.name = name
        self.app = app
        self.secrets = secrets
        self.toleranceSeconds = toleranceSeconds
        self.template = template
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // A listing may nest the hook as `{"name": ..., "definition": {...}}`.
        let fields = container.contains(.definition)
            ? try container.nestedContainer(keyedBy: CodingKeys.self, forKey: .definition) : container
        name = try fields.decodeIfPresent(String.self, forKey: .name) ?? container.decode(String.self, forKey: .name)
        app = try fields.decode(String.self, forKey: .app)
        // A count as shown; a definition as stored would list them.
        if let count = try? fields.decode(Int.self, forKey: .secrets) {
            secrets = count
        } else {
            secrets = (try fields.decodeIfPresent([String].self, forKey: .secrets))?.count ?? 0
        }
        toleranceSeconds = try fields.decodeIfPresent(Int.self, forKey: .toleranceSeconds)
        template = try fields.decodeIfPresent(JSONValue.self, forKey: .template) ?? .null
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(app, forKey: .app)
        try container.encode(secrets, forKey: .secrets)
        try container.encodeIfPresent(toleranceSeconds, forKey: .toleranceSeconds)
        try container.encode(template, forKey: .template)
    }

    enum CodingKeys: String, CodingKey { case name, app, secrets, toleranceSeconds, template, definition }
}

/// The answer to a signed hook request.
public struct HookReply: Codable, Sendable, Hashable {
    /// Whether a push went out.
    public var pushed: Bool
    /// Whether the template's filter did not match (nothing pushed).
    public var filtered: Bool
    /// A result row per token, device or channel.
    public var results: [PushResult]
    /// Whether the server answered with the first answer again (`Idempotent-Replayed: true`):
    /// a replay or a resend with a known idempotency key, which pushed nothing.
    public var replayed: Bool

    /// Creates a `HookReply` from its fields.
    public init(pushed: Bool, filtered: Bool, results: [PushResult], replayed: Bool = false) {
        self.pushed = pushed
        self.filtered = filtered
        self.results = results
        self.replayed = replayed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pushed = try container.decode(Bool.self, forKey: .pushed)
        filtered = try container.decodeIfPresent(Bool.self, forKey: .filtered) ?? false
        results = try container.decodeIfPresent([PushResult].self, forKey: .results) ?? []
        replayed = try container.decodeIfPresent(Bool.self, forKey: .replayed) ?? false
    }

    enum CodingKeys: String, CodingKey { case pushed, filtered, results, replayed }
}
