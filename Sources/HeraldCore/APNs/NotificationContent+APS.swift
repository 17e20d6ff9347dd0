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
    /// Refuses this content now if APNs would refuse the push it becomes when it fires
    /// (`payloadTooLarge`, `invalidData`), so nothing undeliverable is stored.
    public func checkAlertPayload() throws(HeraldError) {
        if let liveActivity { return try liveActivity.checkPayload(custom: userInfo ?? [:]) }
        try APNsPush.checkPayload(type: .alert, aps: aps, custom: userInfo ?? [:])
    }
}
