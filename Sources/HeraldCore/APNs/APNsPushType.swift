/// The `apns-push-type` values, with the topic and priority each one demands.
public enum APNsPushType: String, CaseIterable, Sendable, Codable {
    case alert, background, voip, complication, fileprovider, liveactivity, location, pushtotalk, widgets, controls, mdm

    /// What Apple appends to the bundle id to form the topic. nil for MDM, whose topic is the
    /// certificate's own UID and is given explicitly.
    public var topicSuffix: String? {
        switch self {
        case .alert, .background: return ""
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .liveactivity: return ".push-type.liveactivity"
        case .location: return ".location-query"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        case .mdm: return nil
        }
    }

    /// The topic for an app with this bundle id.
    public func topic(bundleID: String) -> String? {
        topicSuffix.map { bundleID + $0 }
    }

    /// Priorities APNs accepts for this type; the first is the default.
    public var allowedPriorities: [Int] {
        switch self {
        case .background: return [5]
        case .alert, .liveactivity: return [10, 5, 1]
        case .voip, .pushtotalk, .location: return [10]
        default: return [10, 5]
        }
    }

    /// The largest payload APNs accepts, in bytes.
    public var maximumPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    /// Sent to the device's VoIP token rather than its device token.
    public var usesVoIPToken: Bool { self == .voip }
}
