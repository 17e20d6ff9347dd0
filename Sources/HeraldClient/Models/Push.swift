/// One entry of `POST /v1/push`: a push to ``tokens`` or ``devices`` (with ``aps``), or a Live
/// Activity push to tokens, devices or a broadcast ``channel``.
///
/// ```swift
/// let push = Push(app: "com.example.alarm", devices: ["phone-1"],
///                 aps: ["alert": ["title": "Hello", "body": "From Herald"], "sound": "default"])
/// ```
public struct Push: Codable, Sendable, Hashable {
    /// The app's bundle id.
    public var app: String
    /// Device tokens to push to (exactly one of tokens, devices and channel).
    public var tokens: [String]?
    /// Device ids to push to.
    public var devices: [String]?
    /// A broadcast channel's name, with ``liveActivity``.
    public var channel: String?
    /// The `apns-push-type`; nil: `alert` (or `liveactivity` with ``liveActivity``).
    public var type: PushType?
    /// The `apns-topic`; nil: the bundle id (with a suffix for some types).
    public var topic: String?
    /// The `apns-priority` (10, 5 or 1).
    public var priority: Int?
    /// Unix seconds after which the push service drops it.
    public var expiration: Int?
    /// The `apns-collapse-id`: later pushes with it replace earlier ones.
    public var collapseId: String?
    /// The `apns-id` (a UUID).
    public var id: String?
    /// The `aps` dictionary, with Apple's key names.
    public var aps: JSONValue?
    /// A Live Activity change instead of an alert.
    public var liveActivity: LiveActivity?
    /// Custom payload keys beside `aps`.
    public var data: [String: JSONValue]?

    /// Creates a `Push` from its fields.
    public init(app: String, tokens: [String]? = nil, devices: [String]? = nil, channel: String? = nil, type: PushType? = nil,
                topic: String? = nil, priority: Int? = nil, expiration: Int? = nil, collapseId: String? = nil, id: String? = nil,
                aps: JSONValue? = nil, liveActivity: LiveActivity? = nil, data: [String: JSONValue]? = nil) {
        self.app = app
        self.tokens = tokens
        self.devices = devices
        self.channel = channel
        self.type = type
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.id = id
        self.aps = aps
        self.liveActivity = liveActivity
        self.data = data
    }
}

/// The `apns-push-type` of a push.
public enum PushType: OpenEnum {
    case alert, background, voip, complication, fileprovider, liveactivity, location, pushtotalk, widgets, controls, mdm
    case unknown(String)

    static let known: [PushType] = [.alert, .background, .voip, .complication, .fileprovider, .liveactivity, .location,
                                    .pushtotalk, .widgets, .controls, .mdm]

    public init(rawValue: String) {
        self = Self.known.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
    }

    public var rawValue: String {
        switch self {
        case .alert: return "alert"
        case .background: return "background"
        case .voip: return "voip"
        case .complication: return "complication"
        case .fileprovider: return "fileprovider"
        case .liveactivity: return "liveactivity"
        case .location: return "location"
        case .pushtotalk: return "pushtotalk"
        case .widgets: return "widgets"
        case .controls: return "controls"
        case .mdm: return "mdm"
        case .unknown(let value): return value
        }
    }
}

/// The answer of `POST /v1/push`.
public struct PushReply: Sendable, Hashable {
    /// One row per token or device, or one per channel, in entry order.
    public var results: [PushResult]
    /// Whether the server answered a resend with the first answer (`Idempotent-Replayed: true`):
    /// a call with this `Idempotency-Key` had already pushed, and nothing was pushed now.
    public var replayed: Bool

    /// Creates a `PushReply` from its fields.
    public init(results: [PushResult], replayed: Bool = false) {
        self.results = results
        self.replayed = replayed
    }
}

/// One result row of a push: per token, device, or channel.
public struct PushResult: Codable, Sendable, Hashable {
    /// The entry's index in the batch.
    public var notification: Int
    /// The token, for a row about one.
    public var token: String?
    /// The device id.
    public var device: String?
    /// A broadcast's channel.
    public var channel: String?
    /// 200 (201 for Web Push) when the service accepted it; else its status, or the server's
    /// refusal before sending (403, 404, 410, 422).
    public var status: Int
    /// The `apns-id` (FCM's message name, Web Push's Location) when accepted.
    public var apnsId: String?
    /// Why it was refused (APNs' reason, FCM's errorCode, the server's reason).
    public var reason: String?
    /// APNs' `timestamp` of a token's invalidation.
    public var timestamp: Int64?

    /// Whether the push service accepted it.
    public var isAccepted: Bool { (200..<300).contains(status) }
}
