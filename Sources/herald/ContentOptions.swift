import ArgumentParser
import Foundation

/// What a notification shows, shared by `schedule` and `present`.
struct ContentOptions: ParsableArguments {
    @Option(help: "Notification id (default: a new UUID; the same id replaces).") var id: String?
    @Option(help: "Alert title.") var title: String?
    @Option(help: "Alert subtitle.") var subtitle: String?
    @Option(help: "Alert body.") var body: String
    @Option(help: "Sound file name, or \"default\".") var sound: String?
    @Option(help: "Badge number.") var badge: Int?
    @Option(help: "Category identifier.") var category: String?
    @Option(help: "Thread identifier.") var threadId: String?
    @Option(help: "Custom data as a JSON object.") var userInfo: String?

    func fields() throws -> [String: Any] {
        var alert: [String: Any] = ["body": body]
        if let title { alert["title"] = title }
        if let subtitle { alert["subtitle"] = subtitle }
        var fields: [String: Any] = ["alert": alert]
        if let id { fields["id"] = id }
        if let sound { fields["sound"] = sound }
        if let badge { fields["badge"] = badge }
        if let category { fields["category"] = category }
        if let threadId { fields["threadId"] = threadId }
        if let userInfo {
            guard let object = try? JSONSerialization.jsonObject(with: Data(userInfo.utf8)) as? [String: Any] else {
                throw ValidationError("--user-info must be a JSON object")
            }
            fields["userInfo"] = object
        }
        return fields
    }
}
