/// The `aps` dictionary of a push payload, with Apple's key names.
public struct APS: Codable, Hashable, Sendable {
    /// `alert`: a plain string, or a dictionary with titles and localization keys.
    public enum Alert: Codable, Hashable, Sendable {
        case text(String)
        case content(AlertContent)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .content(try container.decode(AlertContent.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .content(let content): try container.encode(content)
            }
        }
    }

    public struct AlertContent: Codable, Hashable, Sendable {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        public var launchImage: String?
        public var titleLocKey: String?
        public var titleLocArgs: [String]?
        public var subtitleLocKey: String?
        public var subtitleLocArgs: [String]?
        public var locKey: String?
        public var locArgs: [String]?

        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
        }

        enum CodingKeys: String, CodingKey {
            case title, subtitle, body
            case launchImage = "launch-image"
            case titleLocKey = "title-loc-key"
            case titleLocArgs = "title-loc-args"
            case subtitleLocKey = "subtitle-loc-key"
            case subtitleLocArgs = "subtitle-loc-args"
            case locKey = "loc-key"
            case locArgs = "loc-args"
        }
    }

    /// `sound`: a file name, or the critical-alert dictionary.
    public enum Sound: Codable, Hashable, Sendable {
        case named(String)
        case critical(CriticalSound)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let name = try? container.decode(String.self) {
                self = .named(name)
            } else {
                self = .critical(try container.decode(CriticalSound.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .named(let name): try container.encode(name)
            case .critical(let sound): try container.encode(sound)
            }
        }
    }

    public struct CriticalSound: Codable, Hashable, Sendable {
        public var critical: Int
        public var name: String
        public var volume: Double?

        public init(critical: Int = 1, name: String, volume: Double? = nil) {
            self.critical = critical
            self.name = name
            self.volume = volume
        }
    }

    public var alert: Alert?
    public var badge: Int?
    public var sound: Sound?
    public var threadId: String?
    public var category: String?
    public var contentAvailable: Int?
    public var mutableContent: Int?
    public var targetContentId: String?
    public var interruptionLevel: String?
    public var relevanceScore: Double?
    public var filterCriteria: String?
    // Live Activity keys.
    public var timestamp: Int?
    public var event: String?
    public var contentState: JSONValue?
    public var staleDate: Int?
    public var dismissalDate: Int?
    public var attributesType: String?
    public var attributes: JSONValue?
    public var inputPushChannel: String?
    public var inputPushToken: Int?
    /// Widget and control pushes: `content-changed: true`.
    public var contentChanged: Bool?

    public init(alert: Alert? = nil, badge: Int? = nil, sound: Sound? = nil, threadId: String? = nil,
                category: String? = nil, contentAvailable: Int? = nil, mutableContent: Int? = nil) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadId = threadId
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
    }

    enum CodingKeys: String, CodingKey {
        case alert, badge, sound, category, timestamp, event, attributes
        case threadId = "thread-id"
        case contentAvailable = "content-available"
        case mutableContent = "mutable-content"
        case targetContentId = "target-content-id"
        case interruptionLevel = "interruption-level"
        case relevanceScore = "relevance-score"
        case filterCriteria = "filter-criteria"
        case contentState = "content-state"
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case attributesType = "attributes-type"
        case inputPushChannel = "input-push-channel"
        case inputPushToken = "input-push-token"
        case contentChanged = "content-changed"
    }

    /// True when the dictionary holds `content-available: 1` and nothing else, as a background
    /// push must.
    public var isBackgroundOnly: Bool {
        var bare = self
        bare.contentAvailable = nil
        return contentAvailable == 1 && bare == APS()
    }
}
