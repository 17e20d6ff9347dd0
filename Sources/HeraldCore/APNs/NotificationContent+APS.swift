import Foundation

extension NotificationContent {
    /// The `aps` dictionary that presents this content as an alert push.
    public var aps: APS {
        APS(alert: .content(.init(title: alert.title, subtitle: alert.subtitle, body: alert.body)),
            badge: badge, sound: sound.map(APS.Sound.named), threadId: threadId, category: category)
    }
}
