import Foundation

extension NotificationContent {
    /// The `aps` dictionary that presents this content as an alert push.
    public var aps: APS {
        APS(alert: alert.map { .content(.init(title: $0.title, subtitle: $0.subtitle, body: $0.body)) },
            badge: badge, sound: sound.map(APS.Sound.named), threadId: threadId, category: category)
    }

    /// The push type it is sent as.
    public var pushType: APNsPushType { liveActivity == nil ? .alert : .liveactivity }
}

extension NotificationContent {
    /// The push this content becomes when it fires, as bytes; refused now if APNs would refuse
    /// it then (`payloadTooLarge`, `invalidData`), so nothing undeliverable is stored.
    public func alertPayload() throws(HeraldError) -> Data {
        if let liveActivity { return try liveActivity.checkedPayload(custom: userInfo ?? [:]) }
        return try APNsPush.checkedPayload(type: .alert, aps: aps, custom: userInfo ?? [:])
    }
}
