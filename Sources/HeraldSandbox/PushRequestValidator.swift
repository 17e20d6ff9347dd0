import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2

/// Checks one request the way APNs does, and names the first rule it breaks with the APNs reason.
///
/// The order is: method, path and token, duplicate headers, push type, topic, priority,
/// `apns-id`, expiration, collapse id, authentication, payload, the push type's payload rules.
/// A broadcast (`/4/broadcasts/apps/<bundle>`) is judged the same way, with its channel id read
/// right after the duplicate headers, as a device push's token is read with its path; whether the
/// channel exists is the registry's to say, after every check here.
///
/// Where APNs has no reason that says exactly what went wrong, the sandbox picks the closest one:
/// - a missing `apns-push-type` is `InvalidPushType`: APNs guesses a type, but Herald always
///   sends one and the sandbox is there to catch the pushes that forget it;
/// - a topic that does not fit the push type (a VoIP push without `.voip`, an alert whose topic
///   carries another type's suffix, characters no bundle id has) is `BadTopic`, not
///   `DeviceTokenNotForTopic`, because the sandbox does not know which app a token belongs to;
///   a broadcast's topic must be its path's bundle id plus `.push-type.liveactivity`;
/// - a body that is not a JSON object with an `aps` dictionary is `PayloadEmpty`: to APNs it
///   carries no notification;
/// - a background push whose `aps` holds anything but `content-available: 1` is
///   `InvalidPushType`: the payload says it is not a background push;
/// - likewise any `aps` that breaks its type's rules (``APNsPushType/checkRules(of:)``: a Live
///   Activity push without an integer `timestamp`, a known `event`, its `content-state` or, on a
///   start, its attributes; a widgets or controls push without `content-changed: true`), or
///   whose keys do not have Apple's types, is `InvalidPushType`: the payload is not a push of
///   the type the header names, so the device would drop it;
/// - a broadcast whose event is `start` is `InvalidPushType` too: channels carry updates and
///   ends, and a start goes to a device's push-to-start token;
/// - a Live Activity push (to a device or a channel) sent with certificate auth is
///   `MissingProviderToken`: APNs takes Live Activity pushes with token auth only.
struct PushRequestValidator: Sendable {
    let keys: [String: ES256Key]
    let maximumTokenAge: TimeInterval

    static let pathPrefix = "/3/device/"
    static let broadcastPathPrefix = "/4/broadcasts/apps/"

    /// A refused request; `APNsReason` itself is plain data, not an `Error`.
    struct Refusal: Error, Equatable {
        var reason: APNsReason
        init(_ reason: APNsReason) { self.reason = reason }
    }

    /// Header names where a repeat is an error; other headers may legitimately repeat in HTTP/2.
    static func isCheckedForDuplicates(_ name: String) -> Bool {
        name.hasPrefix("apns-") || name == "authorization"
    }

    func validate(_ request: HTTP2ServerRequest, clientCertificateSubject: String?, now: Date) throws(Refusal) -> ValidatedPush {
        guard request.method == "POST" else { throw Refusal(.methodNotAllowed) }

        let target = try Self.target(inPath: request.path)
        let broadcastBundleID = target.broadcastBundleID

        var headers: [String: String] = [:]
        for header in request.headers {
            let name = header.name.lowercased()
            if headers[name] != nil, Self.isCheckedForDuplicates(name) { throw Refusal(.duplicateHeaders) }
            headers[name] = header.value
        }

        let address: PushAddress
        switch target {
        case .device(let token): address = .device(token: token)
        case .broadcast(let bundleID): address = .channel(bundleID: bundleID, channelID: try Self.channelID(headers["apns-channel-id"]))
        }

        guard let typeName = headers["apns-push-type"], let pushType = APNsPushType(rawValue: typeName) else {
            throw Refusal(.invalidPushType)
        }
        if broadcastBundleID != nil, pushType != .liveactivity { throw Refusal(.invalidPushType) }

        guard let topic = headers["apns-topic"], !topic.isEmpty else { throw Refusal(.missingTopic) }
        if let broadcastBundleID {
            guard topic == APNsPushType.liveactivity.topic(bundleID: broadcastBundleID) else { throw Refusal(.badTopic) }
        } else {
            guard Self.topic(topic, fits: pushType) else { throw Refusal(.badTopic) }
        }

        let priority: Int
        if let text = headers["apns-priority"] {
            guard let value = Int(text), pushType.allowedPriorities.contains(value) else { throw Refusal(.badPriority) }
            priority = value
        } else {
            priority = pushType.allowedPriorities[0]
        }

        let apnsId = headers["apns-id"]
        if let apnsId, UUID(uuidString: apnsId) == nil { throw Refusal(.badMessageId) }

        var expiration: Int?
        if let text = headers["apns-expiration"] {
            guard let value = Int(text), value >= 0 else { throw Refusal(.badExpirationDate) }
            expiration = value
        }

        let collapseId = headers["apns-collapse-id"]
        if let collapseId, collapseId.utf8.count > APNsPush.maximumCollapseIDBytes { throw Refusal(.badCollapseId) }

        let credential = try authenticate(authorization: headers["authorization"],
                                          clientCertificateSubject: clientCertificateSubject, now: now)
        if pushType == .liveactivity, case .certificate = credential { throw Refusal(.missingProviderToken) }

        guard !request.body.isEmpty else { throw Refusal(.payloadEmpty) }
        guard request.body.count <= pushType.maximumPayloadBytes else { throw Refusal(.payloadTooLarge) }
        guard let payload = try? JSONDecoder().decode(JSONValue.self, from: Data(request.body)),
              case .object(let root) = payload, case .object(let aps)? = root["aps"]
        else { throw Refusal(.payloadEmpty) }
        if pushType == .background, !Self.isBackgroundOnly(aps) { throw Refusal(.invalidPushType) }
        guard let decoded = Self.decodedAPS(body: request.body, aps: aps) else { throw Refusal(.invalidPushType) }
        do {
            try pushType.checkRules(of: decoded)
        } catch {
            throw Refusal(.invalidPushType)
        }
        if broadcastBundleID != nil, decoded.event == LiveActivityEvent.start.rawValue { throw Refusal(.invalidPushType) }

        headers["authorization"] = nil
        return ValidatedPush(address: address, pushType: pushType, topic: topic, priority: priority, apnsId: apnsId,
                             collapseId: collapseId, expiration: expiration, headers: headers, payload: payload,
                             credential: credential)
    }

    /// What a request's path addresses, before its headers are read.
    enum PathTarget: Equatable {
        case device(token: String)
        case broadcast(bundleID: String)

        var broadcastBundleID: String? {
            if case .broadcast(let bundleID) = self { return bundleID }
            return nil
        }
    }

    /// `/4/broadcasts/apps/<bundle>` is a broadcast; a bundle id that is missing, has characters
    /// no bundle id has, or is followed by more segments is `BadPath`. Every other path is judged
    /// as a device path.
    static func target(inPath path: String) throws(Refusal) -> PathTarget {
        guard path.hasPrefix("/4/broadcasts") else { return .device(token: try deviceToken(inPath: path)) }
        guard path.hasPrefix(broadcastPathPrefix) else { throw Refusal(.badPath) }
        let bundleID = path.dropFirst(broadcastPathPrefix.count)
        guard isBundleID(bundleID) else { throw Refusal(.badPath) }
        return .broadcast(bundleID: String(bundleID))
    }

    /// Letters, digits, dots and hyphens, at least one: what a bundle id in a path may be.
    static func isBundleID(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0.isTopicCharacter }
    }

    /// The `apns-channel-id` of a broadcast or a channel request: absent or empty is
    /// `MissingChannelId`, anything that is not base64 (what APNs hands out) is `BadChannelId`.
    static func channelID(_ value: String?) throws(Refusal) -> String {
        guard let value, !value.isEmpty else { throw Refusal(.missingChannelId) }
        guard value.utf8.count <= 200, let bytes = Data(base64Encoded: value), !bytes.isEmpty else { throw Refusal(.badChannelId) }
        return value
    }

    /// The `aps` dictionary with Apple's key types, or nil when a key has another type (a
    /// `timestamp` of 1.5, a string `badge`). Read from the body itself, so a `1.0` is not taken
    /// for the integer 1. `content-available: true` is read as 1, since the background check
    /// has always taken it and ``APS`` spells the flag as an integer.
    static func decodedAPS(body: [UInt8], aps: [String: JSONValue]) -> APS? {
        struct Envelope: Decodable { var aps: APS }
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)) { return envelope.aps }
        guard aps["content-available"] == .bool(true) else { return nil }
        var normalized = aps
        normalized["content-available"] = .number(1)
        guard let data = try? JSONEncoder().encode(JSONValue.object(normalized)) else { return nil }
        return try? JSONDecoder().decode(APS.self, from: data)
    }

    /// `/3/device/<hex>` → the lowercased token. Anything else under `/3/device` is about the
    /// token; any other path is `BadPath`.
    static func deviceToken(inPath path: String) throws(Refusal) -> String {
        if path == "/3/device" || path == pathPrefix { throw Refusal(.missingDeviceToken) }
        guard path.hasPrefix(pathPrefix) else { throw Refusal(.badPath) }
        let token = path.dropFirst(pathPrefix.count)
        if token.contains("/") { throw Refusal(.badPath) }
        guard token.utf8.allSatisfy({ $0.isHexDigit }) else { throw Refusal(.badDeviceToken) }
        return token.lowercased()
    }

    /// Bundle-id characters only, and the push type's suffix: required for types that have one,
    /// forbidden (any other type's) for alert and background, which use the bare bundle id.
    static func topic(_ topic: String, fits pushType: APNsPushType) -> Bool {
        guard topic.utf8.allSatisfy({ $0.isTopicCharacter }) else { return false }
        switch pushType.topicSuffix {
        case nil:
            return true
        case ""?:
            return !APNsPushType.allCases.contains { other in
                guard let suffix = other.topicSuffix, !suffix.isEmpty else { return false }
                return topic.hasSuffix(suffix)
            }
        case let suffix?:
            return topic.hasSuffix(suffix) && topic.count > suffix.count
        }
    }

    /// A background push wakes the app and shows nothing: `aps` is exactly `content-available: 1`.
    static func isBackgroundOnly(_ aps: [String: JSONValue]) -> Bool {
        guard aps.count == 1 else { return false }
        switch aps["content-available"] {
        case .number(1)?, .bool(true)?: return true
        default: return false
        }
    }

    /// A bearer token wins over a client certificate, as with APNs; with neither, the provider
    /// token is what is missing, since token auth is the recommended way.
    func authenticate(authorization: String?, clientCertificateSubject: String?, now: Date) throws(Refusal) -> SandboxCredential {
        guard let authorization else {
            if let clientCertificateSubject { return .certificate(subject: clientCertificateSubject) }
            throw Refusal(.missingProviderToken)
        }
        let scheme = "bearer "
        guard authorization.count > scheme.count, authorization.lowercased().hasPrefix(scheme) else {
            let bare = authorization.trimmingCharacters(in: .whitespaces).lowercased() == "bearer"
            throw Refusal(bare ? .missingProviderToken : .invalidProviderToken)
        }
        let jwt = authorization.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
        do {
            let token = try ProviderToken.verify(jwt, keys: keys, now: now, maximumAge: maximumTokenAge)
            return .token(keyID: token.keyID, teamID: token.teamID)
        } catch {
            throw Refusal(APNsReason(rawValue: error.rawValue) ?? .invalidProviderToken)
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }

    /// Letters, digits, dot and hyphen: what bundle ids and Apple's topic suffixes are made of.
    fileprivate var isTopicCharacter: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self) || self == UInt8(ascii: ".") || self == UInt8(ascii: "-")
    }
}
