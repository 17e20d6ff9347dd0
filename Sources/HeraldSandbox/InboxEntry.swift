import Foundation
import HeraldCore

/// One notification as the device would have received it: the payload plus the headers that
/// shaped its delivery.
public struct InboxEntry: Codable, Sendable, Equatable {
    /// The device token, lowercased.
    public var token: String
    /// The `apns-id` the sandbox answered with (the request's, or one it made up).
    public var apnsId: String
    /// The `apns-unique-id` the sandbox answered with, as APNs' development environment does.
    public var uniqueId: String
    public var receivedAt: Date
    public var pushType: APNsPushType
    public var topic: String
    public var priority: Int
    public var collapseId: String?
    /// Unix seconds from `apns-expiration`, if sent.
    public var expiration: Int?
    /// Request headers (names lowercased), without `authorization`, which is a secret.
    public var headers: [String: String]
    public var payload: JSONValue
    public var credential: SandboxCredential

    public init(token: String, apnsId: String, uniqueId: String, receivedAt: Date, pushType: APNsPushType, topic: String,
                priority: Int, collapseId: String?, expiration: Int?, headers: [String: String], payload: JSONValue,
                credential: SandboxCredential) {
        self.token = token
        self.apnsId = apnsId
        self.uniqueId = uniqueId
        self.receivedAt = receivedAt
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.collapseId = collapseId
        self.expiration = expiration
        self.headers = headers
        self.payload = payload
        self.credential = credential
    }

    /// The `aps` dictionary of the payload, if it has one.
    public var aps: [String: JSONValue]? {
        guard case .object(let root) = payload, case .object(let aps)? = root["aps"] else { return nil }
        return aps
    }

    /// A one-line description of what the user would see: "title: body", or a note for silent pushes.
    public var alertSummary: String {
        guard let aps else { return "-" }
        switch aps["alert"] {
        case .string(let text)?:
            return text
        case .object(let alert)?:
            let parts = ["title", "subtitle", "body", "loc-key"].compactMap { key -> String? in
                if case .string(let text)? = alert[key] { return text }
                return nil
            }
            return parts.isEmpty ? "(alert)" : parts.joined(separator: ": ")
        default:
            if case .number(1)? = aps["content-available"] { return "(content-available)" }
            return "-"
        }
    }

    enum CodingKeys: String, CodingKey {
        case token, apnsId, uniqueId, receivedAt, pushType, topic, priority, collapseId, expiration, headers, payload, credential
    }

    /// `receivedAt` is an RFC 3339 string with milliseconds whatever the encoder's date strategy,
    /// so the admin API, the CLI and tests all read the same thing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let received = try container.decode(String.self, forKey: .receivedAt)
        guard let receivedAt = RFC3339.instant(from: received) else {
            throw DecodingError.dataCorruptedError(forKey: .receivedAt, in: container, debugDescription: "not an RFC 3339 instant")
        }
        self.init(token: try container.decode(String.self, forKey: .token),
                  apnsId: try container.decode(String.self, forKey: .apnsId),
                  uniqueId: try container.decode(String.self, forKey: .uniqueId),
                  receivedAt: receivedAt,
                  pushType: try container.decode(APNsPushType.self, forKey: .pushType),
                  topic: try container.decode(String.self, forKey: .topic),
                  priority: try container.decode(Int.self, forKey: .priority),
                  collapseId: try container.decodeIfPresent(String.self, forKey: .collapseId),
                  expiration: try container.decodeIfPresent(Int.self, forKey: .expiration),
                  headers: try container.decode([String: String].self, forKey: .headers),
                  payload: try container.decode(JSONValue.self, forKey: .payload),
                  credential: try container.decode(SandboxCredential.self, forKey: .credential))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        try container.encode(apnsId, forKey: .apnsId)
        try container.encode(uniqueId, forKey: .uniqueId)
        try container.encode(RFC3339.string(from: receivedAt), forKey: .receivedAt)
        try container.encode(pushType, forKey: .pushType)
        try container.encode(topic, forKey: .topic)
        try container.encode(priority, forKey: .priority)
        try container.encodeIfPresent(collapseId, forKey: .collapseId)
        try container.encodeIfPresent(expiration, forKey: .expiration)
        try container.encode(headers, forKey: .headers)
        try container.encode(payload, forKey: .payload)
        try container.encode(credential, forKey: .credential)
    }
}
