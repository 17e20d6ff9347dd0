import Foundation

/// One push in platform-neutral terms, read from what a client gives for APNs (a type, `aps` and
/// custom keys), so a scheduled notification, `POST /v1/push` and a hook reach an Android or web
/// installation exactly as they reach an iOS one.
public struct ChannelPush: Hashable, Sendable {
    public enum Kind: String, Sendable {
        /// Shown to the user.
        case alert
        /// Data only, delivered quietly (`content-available`).
        case background
        /// Data only, delivered at once (a call).
        case voip
    }

    public var kind: Kind
    public var title: String?
    public var body: String?
    public var sound: String?
    public var category: String?
    /// The custom keys beside `aps`, as sent.
    public var data: [String: JSONValue]
    /// Shown once however often it is sent: the occurrence id for a scheduled notification.
    public var collapseID: String?
    /// Unix seconds after which the service stops trying; 0 means now or never; nil, its default.
    public var expiration: Int?
    /// APNs' 10 (at once) or 5 (when convenient), or nil for the kind's default.
    public var priority: Int?
    /// An id the client may correlate with (the occurrence, or the push's `apns-id`).
    public var id: String?

    /// Reads a push of `type` for another platform. Only alert, background and voip pushes have
    /// an Android or web equivalent.
    ///
    /// - Throws: `invalidPushType` (422) for the other APNs types.
    public init(type: APNsPushType, aps: APS, custom: [String: JSONValue], collapseID: String? = nil,
                expiration: Int? = nil, priority: Int? = nil, id: String? = nil) throws(HeraldError) {
        switch type {
        case .alert: kind = .alert
        case .background: kind = .background
        case .voip: kind = .voip
        default:
            throw .invalid(.invalidPushType, "\(type.rawValue) pushes go to iOS devices only; android and web take alert, background and voip")
        }
        switch aps.alert {
        case .text(let text)?: (title, body) = (nil, text)
        case .content(let content)?: (title, body) = (content.title, content.body)
        case nil: (title, body) = (nil, nil)
        }
        if case .named(let name)? = aps.sound { sound = name } else if case .critical(let critical)? = aps.sound {
            sound = critical.name
        }
        category = aps.category
        data = custom
        self.collapseID = collapseID
        self.expiration = expiration
        self.priority = priority
        self.id = id
    }

    /// A fired local notification's alert.
    public init(content: NotificationContent, occurrenceID: String) {
        kind = .alert
        title = content.alert?.title
        body = content.alert?.body
        sound = content.sound
        category = content.category
        data = content.userInfo ?? [:]
        collapseID = occurrenceID
        id = occurrenceID
    }

    /// `data` as FCM requires it: every value a string (JSON text for anything but a string).
    public var stringData: [String: String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return data.mapValues { value in
            if case .string(let text) = value { return text }
            return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }

    /// Seconds the service keeps it for an offline device: from `expiration` when set, else four weeks.
    public func timeToLive(now: Date) -> Int {
        guard let expiration else { return Self.defaultTimeToLive }
        return expiration == 0 ? 0 : max(0, expiration - Int(now.timeIntervalSince1970))
    }

    public static let defaultTimeToLive = 2_419_200

    /// Delivered at once (wakes the device) rather than when convenient.
    public var isUrgent: Bool {
        switch kind {
        case .voip: return true
        case .background: return false
        case .alert: return (priority ?? 10) == 10
        }
    }
}

extension NotificationContent {
    /// Refuses content whose push would be over APNs' limit, or on `platform` over that
    /// service's (`payloadTooLarge`), so nothing undeliverable is stored. The occurrence ids it
    /// will carry (`<notificationID>#<index>`) are counted with a ten-digit index.
    public func checkFits(_ platform: Platform, notificationID: String) throws(HeraldError) {
        try checkAlertPayload()
        if liveActivity != nil, platform != .ios {
            throw .invalid(.liveActivityNotForPlatform, "Live Activities run on iOS; this is a \(platform.rawValue) installation")
        }
        func push() -> ChannelPush {
            ChannelPush(content: self, occurrenceID: Occurrence.id(notificationID: notificationID, index: 1_000_000_000))
        }
        switch platform {
        case .ios: return
        case .android: _ = try FCMMessage(token: "t", push: push(), now: Date())
        case .web:
            let placeholder = WebPushSubscription(endpoint: "https://push.invalid/", keys: .init(p256dh: "", auth: ""))
            _ = try WebPushMessage(subscription: placeholder, push: push(), now: Date())
        }
    }
}
