import ArgumentParser
import Foundation

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

    /// The notification's fields: an alert, or with `liveActivity` (built by
    /// ``LiveActivityOptions``) that object instead, carrying the alert flags as its own alert.
    func fields(liveActivity: LiveActivityOptions? = nil) throws -> [String: Any] {
        var alert: [String: Any] = [:]
        if let title { alert["title"] = title }
        if let subtitle { alert["subtitle"] = subtitle }
        if let body { alert["body"] = body }
        var fields: [String: Any] = [:]
        if let activity = try liveActivity?.object(alert: alert) {
            // The server takes these with an alert only.
            guard sound == nil, badge == nil, category == nil, threadId == nil else {
                throw ValidationError("--sound, --badge, --category and --thread-id go with an alert, not --live-activity")
            }
            fields["liveActivity"] = activity
        } else {
            guard body != nil else { throw ValidationError("--body is required") }
            fields["alert"] = alert
            if let sound { fields["sound"] = sound }
            if let badge { fields["badge"] = badge }
            if let category { fields["category"] = category }
            if let threadId { fields["threadId"] = threadId }
        }
        if let id { fields["id"] = id }
        if let userInfo {
            guard let object = try? JSONSerialization.jsonObject(with: Data(userInfo.utf8)) as? [String: Any] else {
                throw ValidationError("--user-info must be a JSON object")
            }
            fields["userInfo"] = object
        }
        return fields
    }
}
