import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

private let token = String(repeating: "ab", count: 32)

@Suite("APNs push rules")
struct APNsPushTests {
    @Test("An alert push defaults to priority 10 and the bundle id as topic")
    func alertDefaults() throws {
        let push = try APNsPush(token: token, type: .alert, bundleID: "com.example.app", aps: APS(alert: .text("hi")))
        #expect(push.priority == 10 && push.topic == "com.example.app")
        #expect(push.path == "/3/device/\(token)")
    }

    @Test("A push readdressed to another token keeps its payload and headers, with its own apns-id unless the id was given")
    func readdressed() throws {
        let push = try APNsPush(token: token, type: .alert, bundleID: "a.b", aps: APS(alert: .text("hi")))
        let other = String(repeating: "cd", count: 32)
        let copy = try push.addressed(to: other, keepingID: false)
        #expect(copy.token == other && copy.payload == push.payload && copy.kindHeaders.elementsEqual(push.kindHeaders, by: ==))
        #expect(copy.id != push.id)
        #expect(try push.addressed(to: other, keepingID: true).id == push.id)
        #expect(refusal { _ = try push.addressed(to: "not-a-token", keepingID: false) } == "invalidToken")
    }

    @Test("A fresh apns-id is a lowercase version-4 UUID, different every time")
    func freshIDs() {
        let ids = (0..<1000).map { _ in APNsID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(20) {
            let uuid = UUID(uuidString: id)
            #expect(uuid != nil && uuid?.uuidString.lowercased() == id, "\(id)")
            #expect(Array(id)[14] == "4" && "89ab".contains(Array(id)[19]), "\(id)")
        }
    }

    @Test("An alert push may ask for priority 5")
    func alertPriorityFive() throws {
        #expect(try APNsPush(token: token, type: .alert, bundleID: "a.b", priority: 5, aps: APS(alert: .text("hi"))).priority == 5)
    }

    @Test("A background push holds only content-available: 1, at priority 5, on the bundle id")
    func backgroundRules() throws {
        let push = try APNsPush(token: token, type: .background, bundleID: "a.b", aps: APS(contentAvailable: 1))
        #expect(push.priority == 5 && push.topic == "a.b")
        #expect(String(decoding: push.payload, as: UTF8.self) == #"{"aps":{"content-available":1}}"#)
        #expect(refusal { _ = try APNsPush(token: token, type: .background, bundleID: "a.b", priority: 10, aps: APS(contentAvailable: 1)) }
            == "invalidPriority")
        #expect(refusal { _ = try APNsPush(token: token, type: .background, bundleID: "a.b", aps: APS(alert: .text("x"), contentAvailable: 1)) }
            == "invalidBackgroundPayload")
        #expect(refusal { _ = try APNsPush(token: token, type: .background, bundleID: "a.b", aps: APS()) }
            == "invalidBackgroundPayload")
    }

    @Test("A VoIP push goes to <bundle>.voip and may carry up to 5120 bytes")
    func voipRules() throws {
        let push = try APNsPush(token: token, type: .voip, bundleID: "a.b", aps: APS(),
                                custom: ["blob": .string(String(repeating: "x", count: 5000))])
        #expect(push.topic == "a.b.voip")
        #expect(refusal { _ = try APNsPush(token: token, type: .voip, bundleID: "a.b", topic: "a.b", aps: APS()) } == "invalidTopic")
    }

    @Test("Each push type takes the topic suffix Apple documents", arguments: [
        (APNsPushType.complication, "a.b.complication"), (.fileprovider, "a.b.pushkit.fileprovider"),
        (.liveactivity, "a.b.push-type.liveactivity"), (.location, "a.b.location-query"),
        (.pushtotalk, "a.b.voip-ptt"), (.widgets, "a.b.push-type.widgets"), (.controls, "a.b.push-type.controls"),
    ])
    func topicSuffixes(type: APNsPushType, topic: String) throws {
        #expect(try APNsPush(token: token, type: type, bundleID: "a.b", aps: minimalAPS(for: type)).topic == topic)
    }

    @Test("An MDM push needs its topic given")
    func mdmTopic() throws {
        #expect(refusal { _ = try APNsPush(token: token, type: .mdm, bundleID: "a.b", aps: APS()) } == "missingTopic")
        #expect(try APNsPush(token: token, type: .mdm, bundleID: "a.b", topic: "com.apple.mgmt.x", aps: APS()).topic == "com.apple.mgmt.x")
    }

    @Test("A payload over 4096 bytes is refused before it is sent")
    func payloadLimit() {
        let big = String(repeating: "x", count: 4100)
        #expect(refusal { _ = try APNsPush(token: token, type: .alert, bundleID: "a.b", aps: APS(alert: .text(big))) } == "payloadTooLarge")
        #expect(refusal { _ = try APNsPush(token: token, type: .voip, bundleID: "a.b", aps: APS(),
                                         custom: ["x": .string(String(repeating: "x", count: 5200))]) } == "payloadTooLarge")
    }

    @Test("A collapse id is at most 64 bytes")
    func collapseID() throws {
        _ = try APNsPush(token: token, type: .alert, bundleID: "a.b", collapseID: String(repeating: "c", count: 64), aps: APS(alert: .text("x")))
        #expect(refusal { _ = try APNsPush(token: token, type: .alert, bundleID: "a.b", collapseID: String(repeating: "c", count: 65),
                                         aps: APS(alert: .text("x"))) } == "collapseIdTooLong")
    }

    @Test("apns-id is a lowercase UUID, generated when not given")
    func pushID() throws {
        let given = try APNsPush(token: token, type: .alert, bundleID: "a.b", id: "3F2504E0-4F89-11D3-9A0C-0305E82C3301", aps: APS(alert: .text("x")))
        #expect(given.id == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        let generated = try APNsPush(token: token, type: .alert, bundleID: "a.b", aps: APS(alert: .text("x")))
        #expect(UUID(uuidString: generated.id) != nil && generated.id == generated.id.lowercased())
        #expect(refusal { _ = try APNsPush(token: token, type: .alert, bundleID: "a.b", id: "nope", aps: APS(alert: .text("x"))) } == "invalidPushId")
    }

    @Test("Every APNs header is sent when set")
    func headers() throws {
        let push = try APNsPush(token: token, type: .alert, bundleID: "a.b", priority: 5, expiration: 1_900_000_000,
                                id: "3f2504e0-4f89-11d3-9a0c-0305e82c3301", collapseID: "score", aps: APS(alert: .text("x")))
        let names = Dictionary(uniqueKeysWithValues: push.headers.map { ($0.name, $0.value) })
        #expect(names == ["apns-push-type": "alert", "apns-topic": "a.b", "apns-priority": "5",
                          "apns-id": "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "apns-expiration": "1900000000",
                          "apns-collapse-id": "score"])
    }

    @Test("Custom keys sit beside aps, and aps uses Apple's key names")
    func payloadShape() throws {
        var aps = APS(alert: .content(.init(title: "T", body: "B")), badge: 3, sound: .critical(.init(name: "alarm.caf", volume: 0.5)),
                      threadId: "t", category: "c", mutableContent: 1)
        aps.interruptionLevel = "time-sensitive"
        aps.relevanceScore = 0.5
        aps.targetContentId = "x"
        let push = try APNsPush(token: token, type: .alert, bundleID: "a.b", aps: aps, custom: ["orderId": .number(42)])
        let object = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
        let apsObject = try #require(object["aps"] as? [String: Any])
        #expect(object["orderId"] as? Int == 42)
        #expect(Set(apsObject.keys) == ["alert", "badge", "sound", "thread-id", "category", "mutable-content",
                                        "interruption-level", "relevance-score", "target-content-id"])
        #expect((apsObject["sound"] as? [String: Any])?["critical"] as? Int == 1)
    }
}

@Suite("APNs reasons")
struct APNsReasonTests {
    @Test("Every APNs reason maps to its status", arguments: APNsReason.allCases)
    func statuses(reason: APNsReason) {
        let expected: [String: Int] = [
            "BadCollapseId": 400, "BadDeviceToken": 400, "BadExpirationDate": 400, "BadMessageId": 400,
            "BadPriority": 400, "BadTopic": 400, "DeviceTokenNotForTopic": 400, "DuplicateHeaders": 400,
            "IdleTimeout": 400, "InvalidPushType": 400, "MissingDeviceToken": 400, "MissingTopic": 400,
            "PayloadEmpty": 400, "TopicDisallowed": 400, "BadCertificate": 403, "BadCertificateEnvironment": 403,
            "ExpiredProviderToken": 403, "Forbidden": 403, "InvalidProviderToken": 403, "MissingProviderToken": 403,
            "UnrelatedKeyIdInToken": 403, "BadEnvironmentKeyIdInToken": 403, "BadPath": 404, "MethodNotAllowed": 405,
            "ExpiredToken": 410, "Unregistered": 410, "PayloadTooLarge": 413, "TooManyProviderTokenUpdates": 429,
            "TooManyRequests": 429, "InternalServerError": 500, "ServiceUnavailable": 503, "Shutdown": 503,
            "BadChannelId": 400, "MissingChannelId": 400, "InvalidPolicy": 400, "ChannelNotRegistered": 404,
        ]
        #expect(reason.status == expected[reason.rawValue])
    }

    @Test("410 Unregistered and ExpiredToken, and 400 BadDeviceToken, invalidate the token; nothing else does")
    func invalidation() {
        #expect(Set(APNsReason.allCases.filter(\.invalidatesToken)) == [.unregistered, .expiredToken, .badDeviceToken])
    }

    @Test("429 TooManyRequests and 5xx are retried; TooManyProviderTokenUpdates never is")
    func retries() {
        #expect(Set(APNsReason.allCases.filter(\.isRetriable)) == [.tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown])
        #expect(!APNsReason.tooManyProviderTokenUpdates.isRetriable)
        #expect(!APNsReason.tooManyProviderTokenUpdates.needsFreshProviderToken)
    }
}
