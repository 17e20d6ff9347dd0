import Foundation
import HeraldCore
import HeraldDirectory

/// The `liveActivity` object of a notification, a `POST /v1/push` entry, and their answers.
/// Dates are RFC 3339 here and integer seconds in the push.
struct LiveActivityBody: Codable {
    var event: String?
    var activity: String?
    var attributesType: String?
    var attributes: JSONValue?
    var contentState: JSONValue?
    var alert: AlertBody?
    var staleDate: String?
    var dismissalDate: String?
    var relevanceScore: Double?
    var inputPushChannel: String?
    var inputPushToken: Bool?

    /// Checked for `audience`: a device (start, update, end) or a broadcast channel (update, end).
    ///
    /// - Throws: `HeraldError` 422: `invalidLiveActivity`, `missingAttributes`,
    ///   `missingContentState`, `missingActivity`, `activityNotForStart`, `invalidDate`.
    func liveActivity(for audience: LiveActivity.Audience) throws(HeraldError) -> LiveActivity {
        try parsed().validated(for: audience)
    }

    /// The fields read (event, alert, dates), not yet checked against an audience.
    func parsed() throws(HeraldError) -> LiveActivity {
        guard let name = event, let event = LiveActivityEvent(rawValue: name) else {
            throw .invalid(.invalidLiveActivity, "liveActivity.event must be start, update or end")
        }
        var alertContent: NotificationContent.Alert?
        if let alert {
            guard let body = alert.body, !body.isEmpty else {
                throw .invalid(.invalidLiveActivity, "liveActivity.alert.body is required with an alert")
            }
            alertContent = .init(title: alert.title, subtitle: alert.subtitle, body: body)
        }
        return LiveActivity(event: event, activity: activity, attributesType: attributesType, attributes: attributes,
                                contentState: contentState, alert: alertContent,
                                staleDate: try Self.seconds(staleDate, field: "staleDate"),
                                dismissalDate: try Self.seconds(dismissalDate, field: "dismissalDate"),
                                relevanceScore: relevanceScore, inputPushChannel: inputPushChannel,
                                inputPushToken: inputPushToken)
    }

    init(_ liveActivity: LiveActivity) {
        event = liveActivity.event.rawValue
        activity = liveActivity.activity
        attributesType = liveActivity.attributesType
        attributes = liveActivity.attributes
        contentState = liveActivity.contentState
        alert = liveActivity.alert.map { AlertBody(title: $0.title, subtitle: $0.subtitle, body: $0.body) }
        staleDate = liveActivity.staleDate.map { RFC3339.string(from: Date(timeIntervalSince1970: Double($0))) }
        dismissalDate = liveActivity.dismissalDate.map { RFC3339.string(from: Date(timeIntervalSince1970: Double($0))) }
        relevanceScore = liveActivity.relevanceScore
        inputPushChannel = liveActivity.inputPushChannel
        inputPushToken = liveActivity.inputPushToken
    }

    private static func seconds(_ text: String?, field: String) throws(HeraldError) -> Int? {
        guard let text else { return nil }
        guard let date = RFC3339.instant(from: text) else {
            throw .invalid(.invalidDate, "liveActivity.\(field) must be an RFC 3339 instant, such as 2026-06-01T21:00:00Z")
        }
        return Int(date.timeIntervalSince1970.rounded(.down))
    }
}

/// A running activity's token as the API shows it.
struct ActivityResource: Encodable {
    var activity: String
    var token: String
    var attributesType: String?

    static func all(of device: Device) -> [ActivityResource] {
        device.activities.keys.sorted().map { id in
            ActivityResource(activity: id, token: device.activities[id]!.token, attributesType: device.activities[id]!.attributesType)
        }
    }
}

/// A broadcast channel as the API shows it.
struct ChannelResource: Encodable {
    var name: String
    var apnsChannelId: String
    var messageStoragePolicy: Int

    init(_ channel: BroadcastChannel) {
        name = channel.name
        apnsChannelId = channel.apnsChannelID
        messageStoragePolicy = channel.messageStoragePolicy
    }
}
