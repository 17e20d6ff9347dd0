/// The built-in system event kinds: the notifications iOS posts about the device itself.
///
/// Declaration order is delivery order (`allCases`), so a waking client always sees a batch in
/// the same sequence: it must never change once published, and new kinds go at the end.
public enum EventKind: String, Codable, Sendable, CaseIterable {
    /// An external accessory connected or disconnected; keyed by accessory id.
    case accessory
    /// `UIDevice.orientationDidChangeNotification`.
    case orientation
    /// Midnight, a carrier time update or a daylight-saving change; carries no value.
    case significantTimeChange
    /// The device moved to another IANA zone (this also re-times floating notifications).
    case timeZone
    /// A fraction from 0 to 1.
    case batteryLevel
    case batteryState
    case proximity
    /// Protected data became available (unlock) or unavailable (lock).
    case protectedData
    /// An external screen connected or disconnected; keyed by screen id.
    case screen
    /// A screen's mode changed; keyed by screen id.
    case screenMode
    /// A settings-bundle value changed; keyed by setting name, any JSON value.
    case settings
    case locale
    /// The iCloud account changed: an opaque token, or `null` when signed out.
    case ubiquityIdentity

    public static let orientations = [
        "portrait", "portraitUpsideDown", "landscapeLeft", "landscapeRight", "faceUp", "faceDown", "unknown",
    ]
    public static let batteryStates = ["unknown", "unplugged", "charging", "full"]
    public static let connectionStates = ["connected", "disconnected"]
    public static let protectedDataStates = ["available", "unavailable"]

    /// Kinds about one of several things (accessories, screens, settings) keep a slot per key.
    public var isKeyed: Bool {
        switch self {
        case .accessory, .screen, .screenMode, .settings: return true
        default: return false
        }
    }

    public var rule: CoalescingRule {
        switch self {
        case .accessory, .screen: return .connection
        case .significantTimeChange: return .occurrence
        default: return .latest
        }
    }

    /// Checks a value for this kind and returns it in its one canonical form, so that equal
    /// states compare equal when the queue looks for a net change.
    func canonicalValue(_ value: JSONValue?) throws(HeraldError) -> JSONValue? {
        let name = rawValue
        switch self {
        case .accessory, .screen:
            return .string(try EventValidation.string(value, kind: name, oneOf: Self.connectionStates))
        case .orientation:
            return .string(try EventValidation.string(value, kind: name, oneOf: Self.orientations))
        case .significantTimeChange:
            return try EventValidation.noValue(value, kind: name)
        case .timeZone:
            let zone = try EventValidation.string(value, kind: name)
            do {
                _ = try DeviceRules.timeZone(zone)
            } catch {
                throw .invalid(.invalidEventValue, error.message)
            }
            return .string(zone)
        case .batteryLevel:
            let level = try EventValidation.number(value, kind: name)
            guard (0...1).contains(level) else {
                throw .invalid(.invalidEventValue, "'\(name)' values must be a number from 0 to 1")
            }
            return .number(level)
        case .batteryState:
            return .string(try EventValidation.string(value, kind: name, oneOf: Self.batteryStates))
        case .proximity:
            guard case .bool? = value else {
                throw .invalid(.invalidEventValue, "'\(name)' values must be true or false")
            }
            return value
        case .protectedData:
            return .string(try EventValidation.string(value, kind: name, oneOf: Self.protectedDataStates))
        case .screenMode:
            return .string(try EventValidation.string(value, kind: name))
        case .settings:
            return try EventValidation.anyValue(value, kind: name)
        case .locale:
            let locale = try EventValidation.string(value, kind: name)
            do {
                return .string(try DeviceRules.locale(locale))
            } catch {
                throw .invalid(.invalidEventValue, error.message)
            }
        case .ubiquityIdentity:
            switch value {
            case nil, .null?: return .null  // signed out is a state, not the absence of one
            case .string?: return value
            default: throw .invalid(.invalidEventValue, "'\(name)' values must be a string or null")
            }
        }
    }
}
