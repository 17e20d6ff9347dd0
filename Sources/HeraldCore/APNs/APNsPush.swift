import Foundation

/// One push to one token, checked against the APNs rules before it is sent.
///
/// Everything that APNs would refuse for the request's shape is refused here first, with a
/// clear reason, so that a bad request never costs a round trip or counts against rate limits.
public struct APNsPush: Hashable, Sendable {
    public var token: String
    public var type: APNsPushType
    public var topic: String
    public var priority: Int
    /// Unix seconds after which APNs stops trying; 0 means deliver once or not at all.
    public var expiration: Int?
    /// Lowercase UUID; APNs echoes it, and the sandbox keys its inbox by it.
    public var id: String
    public var collapseID: String?
    /// The JSON body: `aps` plus any custom keys beside it.
    public var payload: Data
    /// A broadcast's channel (iOS 18): sent to `/4/broadcasts/apps/{bundle}` with
    /// `apns-channel-id`, not to a device. ``token`` then holds the channel id too, as the
    /// address outcomes and backoff are keyed by.
    public var channelID: String?
    /// The app the push is for.
    public var bundleID: String

    public static let maximumCollapseIDBytes = 64

    /// Builds and validates a push.
    ///
    /// - Parameters:
    ///   - bundleID: the app's bundle id; the topic is derived from it and the type.
    ///   - topic: only for MDM, whose topic cannot be derived.
    public init(token: String, type: APNsPushType, bundleID: String, topic: String? = nil, priority: Int? = nil,
                expiration: Int? = nil, id: String? = nil, collapseID: String? = nil, aps: APS,
                custom: [String: JSONValue] = [:]) throws(HeraldError) {
        guard let derivedTopic = type.topic(bundleID: bundleID) ?? topic, !derivedTopic.isEmpty else {
            throw .invalid(.missingTopic, "\(type.rawValue) pushes need an explicit topic")
        }
        if let topic, topic != derivedTopic {
            throw .invalid(.invalidTopic, "a \(type.rawValue) push to \(bundleID) must use topic \(derivedTopic), not \(topic)")
        }
        let chosenPriority = priority ?? type.allowedPriorities[0]
        guard type.allowedPriorities.contains(chosenPriority) else {
            throw .invalid(.invalidPriority,
                           "\(type.rawValue) pushes take priority \(type.allowedPriorities.map(String.init).joined(separator: " or ")), not \(chosenPriority)")
        }
        if let expiration, expiration < 0 {
            throw .invalid(.invalidExpiration, "expiration must be unix seconds, or 0")
        }
        if let collapseID, collapseID.utf8.count > Self.maximumCollapseIDBytes {
            throw .invalid(.collapseIdTooLong, "collapseId is \(collapseID.utf8.count) bytes; APNs allows \(Self.maximumCollapseIDBytes)")
        }
        let pushID: String
        if let id {
            guard let uuid = UUID(uuidString: id) else { throw .invalid(.invalidPushId, "id must be a UUID") }
            pushID = uuid.uuidString.lowercased()
        } else {
            pushID = APNsID.random()
        }
        let body = try Self.checkedPayload(type: type, aps: aps, custom: custom)
        self.token = try DeviceRules.token(token, field: "token")
        self.type = type
        self.topic = derivedTopic
        self.priority = chosenPriority
        self.expiration = expiration
        self.id = pushID
        self.collapseID = collapseID
        self.payload = body
        self.bundleID = bundleID
    }

    /// A broadcast on the channel APNs knows as `channelID`: a `liveactivity` push that reaches
    /// every activity subscribed to it.
    ///
    /// - Throws: `HeraldError` 422, as the device form does, and `invalidChannelId` for an id
    ///   that is not APNs' base64.
    public init(channelID: String, bundleID: String, priority: Int? = nil, expiration: Int? = nil, id: String? = nil,
                collapseID: String? = nil, aps: APS, custom: [String: JSONValue] = [:]) throws(HeraldError) {
        guard !channelID.isEmpty, channelID.utf8.count <= 200,
              channelID.utf8.allSatisfy({ b in (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 43 || b == 47 || b == 61 })
        else {
            throw .invalid(.invalidChannelId, "an APNs channel id is base64")
        }
        // Built as a device push to a placeholder token, then pointed at the channel.
        try self.init(token: "00000000000000000000000000000000", type: .liveactivity, bundleID: bundleID, priority: priority,
                      expiration: expiration, id: id, collapseID: collapseID, aps: aps, custom: custom)
        self.token = channelID
        self.channelID = channelID
    }

    /// The same push to another device token, with its own `apns-id` unless `keepingID`: one
    /// payload, validated and encoded once, sent to many tokens.
    ///
    /// - Throws: `HeraldError` `invalidToken` when `token` is not a device token.
    public func addressed(to token: String, keepingID: Bool) throws(HeraldError) -> APNsPush {
        var push = self
        push.token = try DeviceRules.token(token, field: "token")
        if !keepingID { push.id = APNsID.random() }
        return push
    }

    /// The request headers, in APNs' names.
    public var headers: [(name: String, value: String)] {
        kindHeaders + [("apns-id", id)] + ownHeaders
    }

    /// The headers every push of this kind (type, topic, priority) shares with its siblings: a
    /// sender can encode them once for many pushes.
    public var kindHeaders: [(name: String, value: String)] {
        [("apns-push-type", type.rawValue), ("apns-topic", topic), ("apns-priority", String(priority))]
    }

    /// The headers that may differ from push to push of one kind, besides `apns-id`.
    public var ownHeaders: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        return headers
    }

    public var path: String { channelID == nil ? "/3/device/\(token)" : "/4/broadcasts/apps/\(bundleID)" }

    /// The JSON body a push of `type` would carry, refused when APNs would refuse it: an `aps`
    /// key among the custom keys (`invalidData`), or more bytes than the type allows
    /// (`payloadTooLarge`, naming the size and the limit). Every path that accepts content for a
    /// push (send, schedule, present, hook) checks it here or with ``checkPayload(type:aps:custom:)``.
    public static func checkedPayload(type: APNsPushType, aps: APS, custom: [String: JSONValue]) throws(HeraldError) -> Data {
        try checkRules(type: type, aps: aps, custom: custom)
        let body = try encode(aps: aps, custom: custom)
        guard body.count <= type.maximumPayloadBytes else {
            throw .invalid(.payloadTooLarge, "payload is \(body.count) bytes; \(type.rawValue) pushes allow \(type.maximumPayloadBytes)")
        }
        return body
    }

    /// Refuses what ``checkedPayload(type:aps:custom:)`` refuses, for a path that keeps no bytes
    /// (a schedule, a hook's dry check): the payload is encoded only when its size bound
    /// (``JSONSizeBound``) is over the limit, which most content is far from.
    public static func checkPayload(type: APNsPushType, aps: APS, custom: [String: JSONValue]) throws(HeraldError) {
        if let bound = JSONSizeBound.bytes(of: Body(aps: aps, custom: custom)), bound <= type.maximumPayloadBytes {
            try checkRules(type: type, aps: aps, custom: custom)
        } else {
            _ = try checkedPayload(type: type, aps: aps, custom: custom)
        }
    }

    private static func checkRules(type: APNsPushType, aps: APS, custom: [String: JSONValue]) throws(HeraldError) {
        guard custom["aps"] == nil else { throw .invalid(.invalidData, "custom data cannot use the key \"aps\"") }
        try type.checkRules(of: aps)
    }

    /// The body: `aps` beside the custom keys.
    private struct Body: Encodable {
        var aps: APS
        var custom: [String: JSONValue]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            try container.encode(aps, forKey: AnyCodingKey("aps"))
            for (key, value) in custom { try container.encode(value, forKey: AnyCodingKey(key)) }
        }
    }

    static func encode(aps: APS, custom: [String: JSONValue]) throws(HeraldError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(Body(aps: aps, custom: custom))
        } catch {
            throw .invalid(.invalidPayload, "the payload cannot be encoded as JSON: \(error)")
        }
    }
}
