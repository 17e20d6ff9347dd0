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

    /// Refuses an `aps` dictionary this type cannot carry, as APNs or the device would:
    /// - `background`: `content-available: 1` and nothing else;
    /// - `liveactivity`: an integer `timestamp`, an `event` of start, update or end,
    ///   `content-state` on start and update, `attributes-type` and `attributes` on start;
    /// - `widgets` and `controls`: `content-changed: true`.
    ///
    /// - Throws: `HeraldError` 422 `invalidBackgroundPayload`, `invalidLiveActivityPayload` or
    ///   `invalidWidgetsPayload`.
    public func checkRules(of aps: APS) throws(HeraldError) {
        switch self {
        case .background where !aps.isBackgroundOnly:
            throw .invalid(.invalidBackgroundPayload, "a background push's aps must hold only \"content-available\": 1")
        case .liveactivity:
            guard aps.timestamp != nil else { throw .invalid(.invalidLiveActivityPayload, "a liveactivity push needs aps.timestamp") }
            guard let event = aps.event.flatMap(LiveActivityEvent.init(rawValue:)) else {
                throw .invalid(.invalidLiveActivityPayload, "aps.event must be start, update or end")
            }
            if event != .end, aps.contentState == nil {
                throw .invalid(.invalidLiveActivityPayload, "a \(event.rawValue) needs aps.content-state")
            }
            if event == .start, aps.attributesType == nil || aps.attributes == nil {
                throw .invalid(.invalidLiveActivityPayload, "a start needs aps.attributes-type and aps.attributes")
            }
        case .widgets, .controls:
            guard aps.contentChanged == true else {
                throw .invalid(.invalidWidgetsPayload, "a \(rawValue) push's aps holds \"content-changed\": true")
            }
        default:
            break
        }
    }
}
