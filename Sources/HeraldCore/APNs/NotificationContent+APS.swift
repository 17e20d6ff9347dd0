import Foundation

extension NotificationContent {
    /// The `aps` dictionary that presents this content as an alert push.
    public var aps: APS {
        APS(alert: .content(.init(title: alert.title, subtitle: alert.subtitle, body: alert.body)),
            badge: badge, sound: sound.map(APS.Sound.named), threadId: threadId, category: category)
    }
}

extension NotificationContent {
    /// The alert push this content becomes when it fires, as bytes; refused now if APNs would
    /// refuse it then (`payloadTooLarge`, `invalidData`), so nothing undeliverable is stored.
    public func alertPayload() throws(HeraldError) -> Data {
        try APNsPush.checkedPayload(type: .alert, aps: aps, custom: userInfo ?? [:])
    }
}
