import HeraldCore

/// The smallest `aps` each push type's payload rules accept (``APNsPushType/checkRules(of:)``):
/// for tests about something else (topics, priorities, headers).
public func minimalAPS(for type: APNsPushType) -> APS {
    var aps = APS(alert: .text("hi"))
    switch type {
    case .background:
        aps = APS(contentAvailable: 1)
    case .liveactivity:
        aps.timestamp = 1_800_000_000
        aps.event = LiveActivityEvent.update.rawValue
        aps.contentState = .object(["score": .number(1)])
    case .widgets, .controls:
        aps.contentChanged = true
    default:
        break
    }
    return aps
}
