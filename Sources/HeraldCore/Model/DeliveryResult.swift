/// How a delivery ended: the fire log's `outcome`, stored and shown as its ``rawValue``
/// (`sent`, `held`, an APNs reason...).
public enum DeliveryResult: Hashable, Sendable {
    /// Fired, not delivered yet.
    case pending
    case recorded
    /// Written to the live stream.
    case delivered
    /// Accepted by APNs.
    case sent
    /// Stored in the inbox.
    case held
    /// Refused, by APNs or by Herald's checks before sending: the reason (`Unregistered`,
    /// `payloadTooLarge`, `tokenInvalidated`, ...).
    case refused(String)
    /// Could not be completed: a transport failure or a storage error (`timeout`, ...). A fault,
    /// not an outcome: the dispatcher tries it again and never stores it.
    case failed(String)
    case noDeviceToken
    /// The device was deleted before its firing was delivered.
    case deviceGone
    case notDelivered

    /// The refusal of a firing whose stored content no longer decodes (a corrupt row): final.
    public static let contentUnreadable = "contentUnreadable"
    /// The refusal of a Live Activity update or end whose activity the device no longer has.
    public static let activityGone = "activityGone"
    /// The refusal of a broadcast for an app without APNs settings.
    public static let noPushSettings = "noPushSettings"
    /// The fault of a delivery whose store call failed: tried again, never stored.
    public static let storeUnavailable = "storeUnavailable"

    /// The outcome as the fire log stores it: a name, or a refusal's reason. A fault is never
    /// stored, so any text that names no other case reads back as a refusal.
    public init(stored: String) {
        self = Self.named[stored] ?? .refused(stored)
    }

    private static let named: [String: DeliveryResult] = Dictionary(uniqueKeysWithValues: [
        DeliveryResult.pending, .recorded, .delivered, .sent, .held, .noDeviceToken, .deviceGone, .notDelivered,
    ].map { ($0.rawValue, $0) })

    public var rawValue: String {
        switch self {
        case .pending: return "pending"
        case .recorded: return "recorded"
        case .delivered: return "delivered"
        case .sent: return "sent"
        case .held: return "held"
        case .refused(let reason), .failed(let reason): return reason
        case .noDeviceToken: return "noDeviceToken"
        case .deviceGone: return "deviceGone"
        case .notDelivered: return "notDelivered"
        }
    }

    /// The case without its reason (`refused`, `failed`, `sent`, `held`, ...): a bounded label.
    public var kind: String {
        switch self {
        case .refused: return "refused"
        case .failed: return "failed"
        default: return rawValue
        }
    }
}

extension DeliveryResult: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(stored: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
