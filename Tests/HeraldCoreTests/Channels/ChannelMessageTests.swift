import Foundation
import HeraldCore
import Testing

// "Messages: data values are strings. An alert carries notification. A background push is
// data-only at normal priority. collapse_key / tag play the collapse id's role." And for Web Push:
// "Headers: TTL, Urgency, Topic", with a payload that fits one aes128gcm record.

private func json(_ bytes: [UInt8]) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
}

fileprivate extension JSONValue {
    subscript(key: String) -> JSONValue {
        if case .object(let object) = self { return object[key] ?? .null }
        return .null
    }

    var keys: Set<String> {
        if case .object(let object) = self { return Set(object.keys) }
        return []
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}

/// A fixed "now" the expirations are written around.
private let now = Date(timeIntervalSince1970: 1_800_000_000)
private let fcmToken = "cAbc1-DEf_2:APA91bHPRgkF3JUikC4ENAHEeMrd41Zxv3hVZjC9KtT8"
private let web = WebPushSubscription(endpoint: "https://fcm.googleapis.com/fcm/send/abc", keys: RFC8291.keys)

/// An alert as a client gives it for APNs: title and body, a sound, a category, custom keys of
/// every JSON type, and the occurrence as collapse id and id.
private func alertPush(priority: Int? = nil, expiration: Int? = nil) throws -> ChannelPush {
    try ChannelPush(type: .alert,
                    aps: APS(alert: .content(.init(title: "Stand-up", body: "in 5 minutes")), sound: .named("chime.caf"),
                             category: "MEETING"),
                    custom: ["room": .string("4B"), "floor": .number(4), "ratio": .number(0.5), "urgent": .bool(true),
                             "meta": .object(["b": .number(2), "a": .string("x/y")]), "tags": .array([.string("t")]), "none": .null],
                    collapseID: "standup#3", expiration: expiration, priority: priority, id: "standup#3")
}

private func backgroundPush() throws -> ChannelPush {
    try ChannelPush(type: .background, aps: APS(contentAvailable: 1), custom: ["sync": .string("inbox")], id: "bg-1")
}

private func voipPush() throws -> ChannelPush {
    try ChannelPush(type: .voip, aps: APS(), custom: ["caller": .string("Ada")], id: "call-1")
}

@Suite("FCM HTTP v1 messages")
struct FCMMessageTests {
    @Test("An alert carries notification {title, body}; android priority high, four weeks' ttl, the collapse id as collapse_key and tag, the category as channel_id")
    func alertMessage() throws {
        let body = try json(try FCMMessage(token: fcmToken, push: try alertPush(), now: now).body())
        let message = body["message"]
        #expect(body.keys == ["message"])
        #expect(message["token"].string == fcmToken)
        #expect(message["notification"] == .object(["title": .string("Stand-up"), "body": .string("in 5 minutes")]))
        let android = message["android"]
        #expect(android["priority"].string == "high")
        #expect(android["ttl"].string == "2419200s", "four weeks when the push has no expiration")
        #expect(android["collapse_key"].string == "standup#3")
        #expect(android["notification"]["tag"].string == "standup#3")
        #expect(android["notification"]["channel_id"].string == "MEETING")
        #expect(android["notification"]["sound"].string == "chime.caf")
    }

    @Test("data values are all strings: strings as they are, numbers, booleans, objects, arrays and null as their JSON text; herald_id is the push's id")
    func dataValuesAreStrings() throws {
        let data = try json(try FCMMessage(token: fcmToken, push: try alertPush(), now: now).body())["message"]["data"]
        #expect(data == .object([
            "room": .string("4B"), "floor": .string("4"), "ratio": .string("0.5"), "urgent": .string("true"),
            "meta": .string(#"{"a":"x/y","b":2}"#), "tags": .string(#"["t"]"#), "none": .string("null"),
            "herald_id": .string("standup#3"),
        ]))
    }

    @Test("A background push is data-only at normal priority: no notification anywhere")
    func backgroundMessage() throws {
        let message = try json(try FCMMessage(token: fcmToken, push: try backgroundPush(), now: now).body())["message"]
        #expect(message.keys == ["token", "android", "data"])
        #expect(message["android"]["priority"].string == "normal")
        #expect(message["android"]["notification"] == .null)
        #expect(message["data"] == .object(["sync": .string("inbox"), "herald_id": .string("bg-1")]))
    }

    @Test("A voip push is data-only at high priority")
    func voipMessage() throws {
        let message = try json(try FCMMessage(token: fcmToken, push: try voipPush(), now: now).body())["message"]
        #expect(message["notification"] == .null && message["android"]["notification"] == .null)
        #expect(message["android"]["priority"].string == "high")
        #expect(message["data"]["caller"].string == "Ada")
    }

    @Test("An alert asked at APNs priority 5 goes at normal priority")
    func alertPriorityFive() throws {
        let message = try json(try FCMMessage(token: fcmToken, push: try alertPush(priority: 5), now: now).body())["message"]
        #expect(message["android"]["priority"].string == "normal")
        #expect(message["notification"]["title"].string == "Stand-up", "still shown")
    }

    @Test("ttl follows the expiration: seconds left, 0s for 0 (now or never), 0s once it has passed")
    func ttlFromExpiration() throws {
        func ttl(_ expiration: Int?) throws -> String? {
            try json(try FCMMessage(token: fcmToken, push: try alertPush(expiration: expiration), now: now).body())["message"]["android"]["ttl"].string
        }
        #expect(try ttl(nil) == "2419200s")
        #expect(try ttl(0) == "0s")
        #expect(try ttl(Int(now.timeIntervalSince1970) + 3600) == "3600s")
        #expect(try ttl(Int(now.timeIntervalSince1970) - 10) == "0s")
    }

    @Test("A push without id or custom keys has no data at all")
    func noData() throws {
        let push = try ChannelPush(type: .alert, aps: APS(alert: .text("hi")), custom: [:])
        let message = try json(try FCMMessage(token: fcmToken, push: push, now: now).body())["message"]
        #expect(message["data"] == .null)
        #expect(message["android"]["collapse_key"] == .null)
        #expect(message["notification"] == .object(["body": .string("hi")]))
    }

    @Test("body(validateOnly: true) asks FCM to check without sending: \"validate_only\": true beside the same message")
    func validateOnly() throws {
        let fcm = try FCMMessage(token: fcmToken, push: try alertPush(), now: now)
        let checked = try json(fcm.body(validateOnly: true))
        #expect(checked.keys == ["validate_only", "message"])
        #expect(checked["validate_only"] == .bool(true))
        #expect(checked["message"] == (try json(fcm.body()))["message"])
        #expect(String(decoding: fcm.body(validateOnly: true), as: UTF8.self).hasPrefix(#"{"validate_only":true,"message":{"token":"#))
    }

    @Test("addressed(to:) changes only the token; a token that is not an FCM token is invalidFcmToken")
    func addressed() throws {
        let fcm = try FCMMessage(token: fcmToken, push: try alertPush(), now: now)
        let other = try fcm.addressed(to: "other-token:APA91bZ")
        #expect(other.token == "other-token:APA91bZ")
        #expect(other.messageWithoutToken == fcm.messageWithoutToken && other.kind == fcm.kind)
        var expected = try json(fcm.body())
        if case .object(var root) = expected, case .object(var message) = root["message"] {
            message["token"] = .string("other-token:APA91bZ")
            root["message"] = .object(message)
            expected = .object(root)
        }
        #expect(try json(other.body()) == expected)
        #expect(refusal { _ = try fcm.addressed(to: "not a token") } == "invalidFcmToken")
        #expect(refusal { _ = try FCMMessage(token: "", push: try alertPush(), now: now) } == "invalidFcmToken")
    }

    @Test("A message over FCM's 4,096 bytes is payloadTooLarge; exactly 4,096 is sent")
    func payloadLimit() throws {
        func push(bodyBytes: Int) throws -> ChannelPush {
            try ChannelPush(type: .alert, aps: APS(alert: .text(String(repeating: "a", count: bodyBytes))), custom: [:], id: "n#1")
        }
        let overhead = try FCMMessage(token: fcmToken, push: try push(bodyBytes: 0), now: now).messageWithoutToken.count
        let largest = FCMMessage.maximumPayloadBytes - overhead
        #expect(try FCMMessage(token: fcmToken, push: try push(bodyBytes: largest), now: now).messageWithoutToken.count == 4096)
        #expect(refusal { _ = try FCMMessage(token: fcmToken, push: try push(bodyBytes: largest + 1), now: now) } == "payloadTooLarge")
        #expect(refusal { _ = try FCMMessage(token: fcmToken, push: try push(bodyBytes: 4096), now: now) } == "payloadTooLarge")
    }
}

@Suite("Pushes given for APNs, read for another platform")
struct ChannelPushTests {
    @Test("An alert's text is its body; its dictionary gives title and body")
    func alertText() throws {
        let text = try ChannelPush(type: .alert, aps: APS(alert: .text("Wake up")), custom: [:])
        #expect(text.kind == .alert && text.title == nil && text.body == "Wake up")
        let content = try ChannelPush(type: .alert, aps: APS(alert: .content(.init(title: "Alarm", subtitle: "7:00", body: "Wake up"))),
                                      custom: [:])
        #expect(content.title == "Alarm" && content.body == "Wake up")
        let none = try ChannelPush(type: .alert, aps: APS(badge: 3), custom: [:])
        #expect(none.title == nil && none.body == nil)
    }

    @Test("The sound is the named file, or the critical sound's name; the category and custom keys are kept")
    func soundAndCategory() throws {
        let named = try ChannelPush(type: .alert, aps: APS(alert: .text("a"), sound: .named("bell.caf"), category: "ALARM"),
                                    custom: ["k": .string("v")])
        #expect(named.sound == "bell.caf" && named.category == "ALARM" && named.data == ["k": .string("v")])
        let critical = try ChannelPush(type: .alert, aps: APS(alert: .text("a"), sound: .critical(.init(name: "siren.caf", volume: 1))),
                                       custom: [:])
        #expect(critical.sound == "siren.caf")
        #expect(try ChannelPush(type: .alert, aps: APS(alert: .text("a")), custom: [:]).sound == nil)
    }

    @Test("alert, background and voip map to their kinds")
    func kinds() throws {
        #expect(try ChannelPush(type: .alert, aps: APS(alert: .text("a")), custom: [:]).kind == .alert)
        #expect(try backgroundPush().kind == .background)
        #expect(try voipPush().kind == .voip)
    }

    @Test("Every other APNs push type goes to iOS only: invalidPushType",
          arguments: APNsPushType.allCases.filter { ![.alert, .background, .voip].contains($0) })
    func otherTypesRefused(type: APNsPushType) {
        #expect(refusal { _ = try ChannelPush(type: type, aps: APS(alert: .text("a")), custom: [:]) } == "invalidPushType",
                "\(type.rawValue)")
    }

    @Test("timeToLive: four weeks without an expiration, 0 for 0, the seconds left otherwise, never negative")
    func timeToLive() throws {
        func push(_ expiration: Int?) throws -> ChannelPush {
            try ChannelPush(type: .alert, aps: APS(alert: .text("a")), custom: [:], expiration: expiration)
        }
        let nowSeconds = Int(now.timeIntervalSince1970)
        #expect(try push(nil).timeToLive(now: now) == 2_419_200)
        #expect(ChannelPush.defaultTimeToLive == 2_419_200)
        #expect(try push(0).timeToLive(now: now) == 0)
        #expect(try push(nowSeconds + 90).timeToLive(now: now) == 90)
        #expect(try push(nowSeconds - 90).timeToLive(now: now) == 0)
    }

    @Test("Urgent: voip always, background never, an alert unless asked at priority 5")
    func urgency() throws {
        #expect(try alertPush().isUrgent)
        #expect(try alertPush(priority: 10).isUrgent)
        #expect(try !alertPush(priority: 5).isUrgent)
        #expect(try !backgroundPush().isUrgent)
        #expect(try voipPush().isUrgent)
    }

    @Test("A fired local notification is an alert with its content, user info as data, and the occurrence as id and collapse id")
    func fromLocalNotification() {
        let content = NotificationContent(alert: .init(title: "Stand-up", body: "in 5 minutes"), sound: "chime.caf", category: "MEETING",
                                          userInfo: ["room": .string("4B")])
        let push = ChannelPush(content: content, occurrenceID: "standup#3")
        #expect(push.kind == .alert && push.title == "Stand-up" && push.body == "in 5 minutes")
        #expect(push.sound == "chime.caf" && push.category == "MEETING" && push.data == ["room": .string("4B")])
        #expect(push.collapseID == "standup#3" && push.id == "standup#3")
        #expect(push.expiration == nil && push.isUrgent)
        #expect(ChannelPush(content: NotificationContent(alert: .init(body: "x")), occurrenceID: "o#1").data == [:])
    }
}

@Suite("Web Push messages")
struct WebPushMessageTests {
    @Test("The payload a service worker reads: title, body, sound, kind, data with its JSON types, the id, and the collapse id as tag")
    func payload() throws {
        let message = try WebPushMessage(subscription: web, push: try alertPush(), now: now)
        let payload = try json(message.plaintext)
        #expect(payload.keys == ["title", "body", "sound", "kind", "data", "id", "tag"])
        #expect(payload["title"].string == "Stand-up" && payload["body"].string == "in 5 minutes")
        #expect(payload["kind"].string == "alert")
        #expect(payload["id"].string == "standup#3" && payload["tag"].string == "standup#3")
        #expect(payload["sound"].string == "chime.caf")
        #expect(payload["data"]["floor"] == .number(4), "Web Push data keeps JSON types (only FCM needs strings)")
        #expect(payload["data"]["urgent"] == .bool(true))
        #expect(payload["data"]["meta"] == .object(["b": .number(2), "a": .string("x/y")]))
        #expect(message.collapseID == "standup#3")
        #expect(message.subscription == web)
    }

    @Test("A data-only push has kind and id but no title, body or tag")
    func dataOnlyPayload() throws {
        let payload = try json(try WebPushMessage(subscription: web, push: try backgroundPush(), now: now).plaintext)
        #expect(payload == .object(["kind": .string("background"), "data": .object(["sync": .string("inbox")]), "id": .string("bg-1")]))
    }

    @Test("Urgency: an alert high at priority 10 (the default), normal at 5; background low; voip high")
    func urgency() throws {
        func urgency(_ push: ChannelPush) throws -> String { try WebPushMessage(subscription: web, push: push, now: now).urgency }
        #expect(try urgency(alertPush()) == "high")
        #expect(try urgency(alertPush(priority: 10)) == "high")
        #expect(try urgency(alertPush(priority: 5)) == "normal")
        #expect(try urgency(backgroundPush()) == "low")
        #expect(try urgency(voipPush()) == "high")
    }

    @Test("TTL follows the expiration as for FCM: four weeks by default, 0 for 0, the seconds left")
    func timeToLive() throws {
        func ttl(_ expiration: Int?) throws -> Int {
            try WebPushMessage(subscription: web, push: try alertPush(expiration: expiration), now: now).timeToLive
        }
        #expect(try ttl(nil) == 2_419_200)
        #expect(try ttl(0) == 0)
        #expect(try ttl(Int(now.timeIntervalSince1970) + 60) == 60)
    }

    @Test("A payload over 3,993 bytes (one 4,096-byte aes128gcm record) is payloadTooLarge; exactly 3,993 is sent")
    func payloadLimit() throws {
        func push(bodyBytes: Int) throws -> ChannelPush {
            try ChannelPush(type: .alert, aps: APS(alert: .text(String(repeating: "a", count: bodyBytes))), custom: [:], id: "n#1")
        }
        #expect(WebPushMessage.maximumPlaintextBytes == 4096 - 86 - 16 - 1)
        let overhead = try WebPushMessage(subscription: web, push: try push(bodyBytes: 0), now: now).plaintext.count
        let largest = WebPushMessage.maximumPlaintextBytes - overhead
        #expect(try WebPushMessage(subscription: web, push: try push(bodyBytes: largest), now: now).plaintext.count == 3993)
        #expect(refusal { _ = try WebPushMessage(subscription: web, push: try push(bodyBytes: largest + 1), now: now) } == "payloadTooLarge")
    }

    @Test("addressed(to:) keeps the encrypted-to-be payload and headers, for another subscription")
    func addressed() throws {
        let message = try WebPushMessage(subscription: web, push: try alertPush(), now: now)
        let other = WebPushSubscription(endpoint: "https://updates.push.services.mozilla.com/wpush/v2/x", keys: RFC8291.keys)
        let copy = message.addressed(to: other)
        #expect(copy.subscription == other)
        #expect(copy.plaintext == message.plaintext && copy.urgency == message.urgency && copy.timeToLive == message.timeToLive
            && copy.collapseID == message.collapseID)
    }
}

@Suite("Notification content fits the device's push service")
struct ChannelFitTests {
    /// A notification id as the API makes one when none is given: a lowercase UUID.
    static let notificationID = "6f1c2b0e-8a7d-4e3f-9b21-5c4d3e2f1a0b"

    static func content(bodyBytes: Int) -> NotificationContent {
        NotificationContent(alert: .init(body: String(repeating: "a", count: bodyBytes)))
    }

    static func verdict(_ content: NotificationContent, _ platform: Platform, id: String = notificationID) -> String? {
        refusal { try content.checkFits(platform, notificationID: id) }
    }

    @Test("A 3,900-byte body fits APNs' 4,096-byte alert, but not FCM's 4,096-byte message or one Web Push record once the occurrence ids are added")
    func thirtyNineHundredBytes() {
        let content = Self.content(bodyBytes: 3900)
        #expect(Self.verdict(content, .ios) == nil)
        #expect(Self.verdict(content, .android) == "payloadTooLarge")
        #expect(Self.verdict(content, .web) == "payloadTooLarge")
    }

    @Test("A 4,000-byte body fits APNs and neither FCM nor Web Push, whatever the id; a short body fits all three")
    func fourThousandBytes() {
        for id in ["n", Self.notificationID] {
            #expect(Self.verdict(Self.content(bodyBytes: 4000), .ios, id: id) == nil)
            #expect(Self.verdict(Self.content(bodyBytes: 4000), .android, id: id) == "payloadTooLarge")
            #expect(Self.verdict(Self.content(bodyBytes: 4000), .web, id: id) == "payloadTooLarge")
            for platform in Platform.allCases {
                #expect(Self.verdict(Self.content(bodyBytes: 100), platform, id: id) == nil, "\(platform)")
            }
        }
    }

    @Test("Past APNs' 4,096 bytes the content is refused for ios too")
    func overAPNs() {
        #expect(Self.verdict(Self.content(bodyBytes: 4096), .ios) == "payloadTooLarge")
    }

    @Test("The check counts the occurrence ids with a ten-digit index: the longest any occurrence can carry")
    func tenDigitIndex() throws {
        // The largest body that fits FCM with the ten-digit index, checked against the message itself.
        let id = Self.notificationID
        let longest = "\(id)#1000000000"
        func fcmBytes(_ bodyBytes: Int) throws -> Int {
            try FCMMessage(token: "t", push: ChannelPush(content: Self.content(bodyBytes: bodyBytes), occurrenceID: longest), now: now)
                .messageWithoutToken.count
        }
        let largest = FCMMessage.maximumPayloadBytes - (try fcmBytes(0))
        #expect(Self.verdict(Self.content(bodyBytes: largest), .android) == nil)
        #expect(Self.verdict(Self.content(bodyBytes: largest + 1), .android) == "payloadTooLarge")
        // With index 1 the same content would still fit; the check is for the last occurrence too.
        #expect(refusal {
            _ = try FCMMessage(token: "t", push: ChannelPush(content: Self.content(bodyBytes: largest + 1), occurrenceID: "\(id)#1"), now: now)
        } == nil)
    }
}
