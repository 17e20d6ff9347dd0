import Foundation
import HeraldCore

/// One Live Activity push as the activity received it: a row of a device token's activity
/// timeline (`GET /activities/{token}`) or of a channel's broadcasts (`GET /broadcasts/{id}`).
///
/// It is read back from the `aps` of an accepted `liveactivity` push, so it shows what
/// ActivityKit would act on (the event, its `timestamp`, the new content) rather than the raw
/// request, which the inbox already keeps.
public struct ActivityEvent: Codable, Sendable, Equatable {
    public var event: LiveActivityEvent
    /// `aps.timestamp`, unix seconds: ActivityKit ignores a push older than the last one applied.
    public var timestamp: Int
    /// `aps.content-state`; nil on an end that carries none.
    public var contentState: JSONValue?
    /// `aps.attributes-type`, set on a start.
    public var attributesType: String?
    /// `aps.alert`, as sent (a string or a dictionary).
    public var alert: JSONValue?
    public var apnsId: String
    public var collapseId: String?
    public var receivedAt: Date

    public init(event: LiveActivityEvent, timestamp: Int, contentState: JSONValue?, attributesType: String?, alert: JSONValue?,
                apnsId: String, collapseId: String?, receivedAt: Date) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.attributesType = attributesType
        self.alert = alert
        self.apnsId = apnsId
        self.collapseId = collapseId
        self.receivedAt = receivedAt
    }

    /// The event a push's payload describes, or nil when its `aps` is not a Live Activity's
    /// (no known `event`, no integral `timestamp`); an accepted `liveactivity` push always is.
    init?(payload: JSONValue, apnsId: String, collapseId: String?, receivedAt: Date) {
        guard case .object(let root) = payload, case .object(let aps)? = root["aps"],
              case .string(let name)? = aps["event"], let event = LiveActivityEvent(rawValue: name),
              case .number(let seconds)? = aps["timestamp"], seconds.rounded() == seconds, abs(seconds) < 9.0e15
        else { return nil }
        var attributesType: String?
        if case .string(let type)? = aps["attributes-type"] { attributesType = type }
        self.init(event: event, timestamp: Int(seconds), contentState: aps["content-state"], attributesType: attributesType,
                  alert: aps["alert"], apnsId: apnsId, collapseId: collapseId, receivedAt: receivedAt)
    }

    /// The Live Activity timeline of one device's inbox: its `liveactivity` pushes, in arrival
    /// order. Other push types are not about an activity and are left out.
    static func timeline(of inbox: [InboxEntry]) -> [ActivityEvent] {
        inbox.compactMap { entry in
            guard entry.pushType == .liveactivity else { return nil }
            return ActivityEvent(payload: entry.payload, apnsId: entry.apnsId, collapseId: entry.collapseId, receivedAt: entry.receivedAt)
        }
    }

    enum CodingKeys: String, CodingKey {
        case event, timestamp, contentState, attributesType, alert, apnsId, collapseId, receivedAt
    }

    /// Absent values are written as `null`, so every row has the same keys; `receivedAt` is an
    /// RFC 3339 string with milliseconds, as in ``InboxEntry``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(contentState ?? .null, forKey: .contentState)
        try container.encode(attributesType, forKey: .attributesType)
        try container.encode(alert ?? .null, forKey: .alert)
        try container.encode(apnsId, forKey: .apnsId)
        try container.encode(collapseId, forKey: .collapseId)
        try container.encode(RFC3339.string(from: receivedAt), forKey: .receivedAt)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let received = try container.decode(String.self, forKey: .receivedAt)
        guard let receivedAt = RFC3339.instant(from: received) else {
            throw DecodingError.dataCorruptedError(forKey: .receivedAt, in: container, debugDescription: "not an RFC 3339 instant")
        }
        let contentState = try container.decodeIfPresent(JSONValue.self, forKey: .contentState)
        let alert = try container.decodeIfPresent(JSONValue.self, forKey: .alert)
        self.init(event: try container.decode(LiveActivityEvent.self, forKey: .event),
                  timestamp: try container.decode(Int.self, forKey: .timestamp),
                  contentState: contentState == .null ? nil : contentState,
                  attributesType: try container.decodeIfPresent(String.self, forKey: .attributesType),
                  alert: alert == .null ? nil : alert,
                  apnsId: try container.decode(String.self, forKey: .apnsId),
                  collapseId: try container.decodeIfPresent(String.self, forKey: .collapseId),
                  receivedAt: receivedAt)
    }
}
