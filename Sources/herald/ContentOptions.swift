import ArgumentParser
import Foundation
import HeraldClient

/// What a notification shows, shared by `schedule` and `present`.
struct ContentOptions: ParsableArguments {
    @Option(help: "Notification id (default: a new UUID; the same id replaces).") var id: String?
    @Option(help: "Alert title.") var title: String?
    @Option(help: "Alert subtitle.") var subtitle: String?
    @Option(help: "Alert body (required, except with schedule --live-activity, where it is the activity's optional alert).")
    var body: String?
    @Option(help: "Sound file name, or \"default\".") var sound: String?
    @Option(help: "Badge number.") var badge: Int?
    @Option(help: "Category identifier.") var category: String?
    @Option(help: "Thread identifier.") var threadId: String?
    @Option(help: "Custom data as a JSON object.") var userInfo: String?

    /// A notification's content: an alert, or a Live Activity change.
    struct Content {
        var alert: AlertContent?
        var liveActivity: LiveActivity?
        var userInfo: [String: JSONValue]?
    }

    /// The alert flags, nil when none is given.
    var alertFlags: AlertContent? {
        title == nil && subtitle == nil && body == nil ? nil : AlertContent(title: title, subtitle: subtitle, body: body)
    }

    /// The notification's content: an alert, or with `liveActivity` (built by
    /// ``LiveActivityOptions``) that change instead, carrying the alert flags as its own alert.
    func content(liveActivity: LiveActivityOptions? = nil) throws -> Content {
        var content = Content()
        if let activity = try liveActivity?.liveActivity(alert: alertFlags) {
            // The server takes these with an alert only.
            guard sound == nil, badge == nil, category == nil, threadId == nil else {
                throw ValidationError("--sound, --badge, --category and --thread-id go with an alert, not --live-activity")
            }
            content.liveActivity = activity
        } else {
            guard body != nil else { throw ValidationError("--body is required") }
            content.alert = alertFlags
        }
        content.userInfo = try userInfo.map { try jsonObject($0, flag: "--user-info") }
        return content
    }

    /// The request `herald schedule` sends.
    func notificationRequest(fireDate: String, timeZone: String?, repeat rule: RepeatRule?,
                             liveActivity: LiveActivityOptions) throws -> NotificationRequest {
        let content = try content(liveActivity: liveActivity)
        return NotificationRequest(id: id, fireDate: fireDate, timeZone: timeZone, repeat: rule, alert: content.alert,
                                   liveActivity: content.liveActivity, sound: sound, badge: badge, category: category,
                                   threadId: threadId, userInfo: content.userInfo)
    }

    /// The request `herald present` sends.
    func presentRequest() throws -> PresentRequest {
        let content = try content()
        return PresentRequest(id: id, alert: content.alert ?? AlertContent(body: body), sound: sound, badge: badge,
                              category: category, threadId: threadId, userInfo: content.userInfo)
    }
}
