import Foundation

/// What an ActivityKit push does to a Live Activity.
public enum LiveActivityEvent: String, Codable, Sendable, CaseIterable {
    /// Starts one, through the device's push-to-start token for its attributes type (iOS 17.2+).
    case start
    /// Changes a running one's content, through its update token (or a broadcast channel).
    case update
    /// Ends a running one.
    case end
}

/// A Live Activity push as scheduled or sent: the `liveActivity` object of a notification, a
/// `POST /v1/push` or a hook. It becomes an `apns-push-type: liveactivity` push whose
/// `aps.timestamp` is the instant it is sent for (an occurrence's instant when scheduled).
public struct LiveActivity: Codable, Hashable, Sendable {
    public var event: LiveActivityEvent
    /// The registered activity an update or end goes to. nil for a start and for a broadcast.
    public var activity: String?
    /// The ActivityAttributes type a start creates; its push-to-start token is the address.
    public var attributesType: String?
    /// The static attributes a start creates the activity with.
    public var attributes: JSONValue?
    /// The activity's dynamic content (`ContentState`), required for start and update.
    public var contentState: JSONValue?
    /// Shown with the update, as an alert on the Lock Screen and the Dynamic Island.
    public var alert: NotificationContent.Alert?
    /// Unix seconds when the content is out of date.
    public var staleDate: Int?
    /// Unix seconds when an ended activity leaves the Lock Screen.
    public var dismissalDate: Int?
    /// Which of an app's activities the Dynamic Island shows first (higher wins).
    public var relevanceScore: Double?
    /// iOS 18: the broadcast channel a started activity listens on.
    public var inputPushChannel: String?
    /// iOS 18: ask the started activity for an update token.
    public var inputPushToken: Bool?

    public init(event: LiveActivityEvent, activity: String? = nil, attributesType: String? = nil,
                attributes: JSONValue? = nil, contentState: JSONValue? = nil, alert: NotificationContent.Alert? = nil,
                staleDate: Int? = nil, dismissalDate: Int? = nil, relevanceScore: Double? = nil,
                inputPushChannel: String? = nil, inputPushToken: Bool? = nil) {
        self.event = event
        self.activity = activity
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.inputPushChannel = inputPushChannel
        self.inputPushToken = inputPushToken
    }

    /// Where it is going: a device (a start needs an attributes type, an update or end an
    /// activity) or a broadcast channel (update and end only, no activity).
    public enum Audience: Sendable { case device, channel }

    /// Refuses what APNs or ActivityKit would: a start without attributes or content state, an
    /// update without content state, an update or end naming no activity, a broadcast start.
    ///
    /// - Throws: `HeraldError` 422 with reason `missingAttributes`, `missingContentState`,
    ///   `missingActivity`, `activityNotForStart`, `invalidLiveActivity` or `invalidId`.
    public func validated(for audience: Audience) throws(HeraldError) -> LiveActivity {
        switch (event, audience) {
        case (.start, .channel):
            throw .invalid(.invalidLiveActivity, "a broadcast channel carries update and end events; a start goes to a device's push-to-start token")
        case (.start, .device):
            guard let attributesType, !attributesType.isEmpty else {
                throw .invalid(.missingAttributes, "a start needs attributesType and attributes")
            }
            guard case .object? = attributes else { throw .invalid(.missingAttributes, "a start needs attributes, an object") }
            guard activity == nil else {
                throw .invalid(.activityNotForStart, "a start creates an activity on the device; activity names a running one, for update and end")
            }
        case (.update, .device), (.end, .device):
            guard let activity else { throw .invalid(.missingActivity, "an \(event.rawValue) needs the activity it is for") }
            try Identifier.validate(activity, field: "liveActivity.activity")
        case (.update, .channel), (.end, .channel):
            guard activity == nil else { throw .invalid(.invalidLiveActivity, "a broadcast reaches every activity on its channel; it names no activity") }
        }
        if event != .end, contentState == nil {
            throw .invalid(.missingContentState, "a \(event.rawValue) needs contentState")
        }
        if event != .start, attributes != nil || attributesType != nil || inputPushChannel != nil || inputPushToken != nil {
            throw .invalid(.invalidLiveActivity, "attributes, attributesType, inputPushChannel and inputPushToken belong to a start")
        }
        if let contentState, case .object = contentState {} else if contentState != nil {
            throw .invalid(.invalidLiveActivity, "contentState must be an object")
        }
        for (field, date) in [("staleDate", staleDate), ("dismissalDate", dismissalDate)] {
            if let date, date < 0 { throw .invalid(.invalidLiveActivity, "\(field) must be a time after 1970") }
        }
        if let alert, alert.body.isEmpty { throw .invalid(.invalidLiveActivity, "alert.body must not be empty") }
        return self
    }

    /// Refuses a push that could never be sent to `device` with these push settings: an app on
    /// certificate auth (APNs takes Live Activity pushes with token auth only), or an update or
    /// end for an activity the device has not registered.
    ///
    /// - Throws: `HeraldError` 422 `liveActivityNeedsTokenAuth` or `unknownActivity`.
    public func checkReachable(on device: Device, push: PushSettings?) throws(HeraldError) {
        if let push, !push.usesTokenAuth {
            throw .invalid(.liveActivityNeedsTokenAuth, "APNs takes Live Activity pushes with token auth only; this app uses a certificate")
        }
        if device.broadcastChannel == nil, event != .start, let activity, device.activities[activity] == nil {
            throw .invalid(.unknownActivity, "activity '\(activity)' is not registered on device '\(device.id)'")
        }
    }

    /// The `aps` dictionary of the push sent for the instant `timestamp` (unix seconds).
    public func aps(timestamp: Int) -> APS {
        var aps = APS(alert: alert.map { .content(.init(title: $0.title, subtitle: $0.subtitle, body: $0.body)) })
        aps.timestamp = timestamp
        aps.event = event.rawValue
        aps.contentState = contentState
        aps.staleDate = staleDate
        aps.dismissalDate = dismissalDate
        aps.relevanceScore = relevanceScore
        aps.attributesType = attributesType
        aps.attributes = attributes
        aps.inputPushChannel = inputPushChannel
        aps.inputPushToken = inputPushToken == true ? 1 : nil
        return aps
    }

    /// Refuses the payload now if APNs would refuse it when sent (`payloadTooLarge`).
    public func checkPayload(custom: [String: JSONValue]) throws(HeraldError) {
        // A ten-digit timestamp: the size the payload will have when it is sent.
        try APNsPush.checkPayload(type: .liveactivity, aps: aps(timestamp: 1_000_000_000), custom: custom)
    }
}

/// A running Live Activity's push token, registered by the app (`pushTokenUpdates`).
public struct LiveActivityToken: Codable, Hashable, Sendable {
    /// Lowercase hex.
    public var token: String
    public var attributesType: String?

    public init(token: String, attributesType: String?) {
        self.token = token
        self.attributesType = attributesType
    }
}
