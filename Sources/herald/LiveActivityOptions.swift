import ArgumentParser
import HeraldClient

/// The `liveActivity` object of a scheduled notification or a push, shared by `schedule` and
/// `push`. Its JSON options are parsed in `validate()`, so a typo fails before any request.
struct LiveActivityOptions: ParsableArguments {
    /// What the push does to the activity; a start creates one through a push-to-start token.
    enum Event: String, CaseIterable, ExpressibleByArgument {
        case start, update, end
    }

    @Option(name: .customLong("live-activity"), help: "Send a Live Activity push instead of an alert.")
    var event: Event?
    @Option(help: "The activity's ContentState as a JSON object (start and update).") var contentState: String?
    @Option(help: "The ActivityAttributes type a start creates.") var attributesType: String?
    @Option(help: "The static attributes a start creates the activity with, as a JSON object.") var attributes: String?
    @Option(help: "The registered activity an update or end goes to (not for a broadcast channel).") var activity: String?
    @Option(help: "When the content goes out of date (RFC 3339).") var staleDate: String?
    @Option(help: "When an ended activity leaves the Lock Screen (RFC 3339).") var dismissalDate: String?
    @Option(help: "Which of the app's activities the Dynamic Island shows first (higher wins).") var relevanceScore: Double?
    @Option(help: "iOS 18: the APNs channel id a started activity listens on.") var inputPushChannel: String?
    @Flag(help: "iOS 18: ask the started activity for an update token.") var inputPushToken = false

    func validate() throws {
        _ = try liveActivity(alert: nil)
    }

    /// The Live Activity change, or nil without `--live-activity`; `alert` (title, subtitle,
    /// body) is the activity's optional alert. The server checks which fields each event takes.
    func liveActivity(alert: AlertContent?) throws -> LiveActivity? {
        guard let event else {
            let given: [(String, Bool)] = [
                ("--content-state", contentState != nil), ("--attributes-type", attributesType != nil),
                ("--attributes", attributes != nil), ("--activity", activity != nil), ("--stale-date", staleDate != nil),
                ("--dismissal-date", dismissalDate != nil), ("--relevance-score", relevanceScore != nil),
                ("--input-push-channel", inputPushChannel != nil), ("--input-push-token", inputPushToken),
            ]
            let stray = given.filter(\.1).map(\.0)
            guard stray.isEmpty else {
                throw ValidationError("\(stray.joined(separator: ", ")) \(stray.count == 1 ? "needs" : "need") --live-activity start|update|end")
            }
            return nil
        }
        if let alert {
            // APNs shows a Live Activity's alert only with a body.
            guard alert.body != nil else { throw ValidationError("a Live Activity's alert needs --body (--title and --subtitle go with it)") }
        }
        return LiveActivity(
            event: LiveActivityEvent(rawValue: event.rawValue), activity: activity, attributesType: attributesType,
            attributes: try attributes.map { .object(try jsonObject($0, flag: "--attributes")) },
            contentState: try contentState.map { .object(try jsonObject($0, flag: "--content-state")) },
            alert: alert, staleDate: try staleDate.map { try parseInstant($0, flag: "--stale-date") },
            dismissalDate: try dismissalDate.map { try parseInstant($0, flag: "--dismissal-date") },
            relevanceScore: relevanceScore, inputPushChannel: inputPushChannel, inputPushToken: inputPushToken ? true : nil)
    }
}
