import Foundation

/// One firing of a local notification.
///
/// Its id is the notification id plus the occurrence index, so a retry, a restart or a second node
/// recognises the same firing.
public struct Occurrence: Hashable, Sendable {
    public var appID: String
    public var deviceID: String
    public var notificationID: String
    public var index: Int
    /// The instant the occurrence was due.
    public var scheduledFor: Date
    /// It fired noticeably after it was due, e.g. after downtime.
    public var late: Bool
    /// Earlier occurrences of a repeating notification that were due but folded into this one.
    public var missed: Int

    public init(appID: String, deviceID: String, notificationID: String, index: Int, scheduledFor: Date,
                late: Bool, missed: Int) {
        self.appID = appID
        self.deviceID = deviceID
        self.notificationID = notificationID
        self.index = index
        self.scheduledFor = scheduledFor
        self.late = late
        self.missed = missed
    }

    public var id: String { Self.id(notificationID: notificationID, index: index) }

    public static func id(notificationID: String, index: Int) -> String { "\(notificationID)#\(index)" }

    /// The occurrence index an id ends with (0 if it has none), the inverse of ``id(notificationID:index:)``.
    public static func index(fromID id: String) -> Int {
        id.split(separator: "#").last.flatMap { Int($0) } ?? 0
    }
}

/// How an occurrence (or a presented notification) reached the device, as recorded.
public struct Delivery: Hashable, Sendable {
    public var occurrenceID: String
    public var appID: String
    public var deviceID: String
    public var notificationID: String
    public var scheduledFor: Date
    public var firedAt: Date
    public var late: Bool
    public var missed: Int
    public var channel: DeliveryRoute
    public var outcome: DeliveryResult
    /// For pushes: the HTTP status APNs answered with, and the `apns-id`.
    public var apnsStatus: Int?
    public var apnsID: String?

    public init(occurrenceID: String, appID: String, deviceID: String, notificationID: String, scheduledFor: Date,
                firedAt: Date, late: Bool, missed: Int, channel: DeliveryRoute, outcome: DeliveryResult, apnsStatus: Int? = nil,
                apnsID: String? = nil) {
        self.apnsStatus = apnsStatus
        self.apnsID = apnsID
        self.occurrenceID = occurrenceID
        self.appID = appID
        self.deviceID = deviceID
        self.notificationID = notificationID
        self.scheduledFor = scheduledFor
        self.firedAt = firedAt
        self.late = late
        self.missed = missed
        self.channel = channel
        self.outcome = outcome
    }
}

/// A device token APNs declared dead (410 Unregistered or ExpiredToken, 400 BadDeviceToken).
public struct InvalidToken: Hashable, Sendable {
    public var appID: String
    public var token: String
    public var reason: String
    /// APNs' `timestamp` (milliseconds) when it gave one: the token is invalid since then.
    public var apnsTimestamp: Int64?
    public var invalidatedAt: Date

    public init(appID: String, token: String, reason: String, apnsTimestamp: Int64?, invalidatedAt: Date) {
        self.appID = appID
        self.token = token
        self.reason = reason
        self.apnsTimestamp = apnsTimestamp
        self.invalidatedAt = invalidatedAt
    }
}

/// Something an app's backend should hear about, such as a token becoming invalid. Stored in an
/// outbox so that it survives restarts until it is delivered.
public struct FeedbackEvent: Hashable, Sendable {
    public var type: FeedbackType
    public var appID: String
    public var payload: [String: JSONValue]
    public var createdAt: Date

    public init(type: FeedbackType, appID: String, payload: [String: JSONValue], createdAt: Date) {
        self.type = type
        self.appID = appID
        self.payload = payload
        self.createdAt = createdAt
    }
}
