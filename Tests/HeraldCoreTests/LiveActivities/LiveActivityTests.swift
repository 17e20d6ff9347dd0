import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

private let score: JSONValue = .object(["home": .number(1), "away": .number(0)])
private let token = testDeviceToken(1, family: 0x1a)

private func start(_ change: (inout LiveActivity) -> Void = { _ in }) -> LiveActivity {
    var activity = LiveActivity(event: .start, attributesType: "MatchAttributes", attributes: .object(["home": .string("Lyon")]),
                                contentState: score)
    change(&activity)
    return activity
}

@Suite("Live Activities: the rules of a start, an update and an end")
struct LiveActivityRuleTests {
    @Test("A start needs attributesType, attributes (an object) and contentState, and names no activity")
    func startRules() {
        #expect(refusal { _ = try start().validated(for: .device) } == nil)
        #expect(refusal { _ = try start { $0.attributesType = nil }.validated(for: .device) } == "missingAttributes")
        #expect(refusal { _ = try start { $0.attributes = .string("x") }.validated(for: .device) } == "missingAttributes")
        #expect(refusal { _ = try start { $0.contentState = nil }.validated(for: .device) } == "missingContentState")
        #expect(refusal { _ = try start { $0.activity = "a" }.validated(for: .device) } == "activityNotForStart")
    }

    @Test("An update needs its activity and contentState; an end needs its activity only")
    func updateAndEndRules() {
        #expect(refusal { _ = try LiveActivity(event: .update, activity: "m", contentState: score).validated(for: .device) } == nil)
        #expect(refusal { _ = try LiveActivity(event: .update, contentState: score).validated(for: .device) } == "missingActivity")
        #expect(refusal { _ = try LiveActivity(event: .update, activity: "m").validated(for: .device) } == "missingContentState")
        #expect(refusal { _ = try LiveActivity(event: .end, activity: "m").validated(for: .device) } == nil)
        #expect(refusal {
            _ = try LiveActivity(event: .update, activity: "m", attributesType: "T", contentState: score).validated(for: .device)
        } == "invalidLiveActivity")
    }

    @Test("A broadcast channel carries update and end, naming no activity")
    func broadcastRules() {
        #expect(refusal { _ = try LiveActivity(event: .update, contentState: score).validated(for: .channel) } == nil)
        #expect(refusal { _ = try start().validated(for: .channel) } == "invalidLiveActivity")
        #expect(refusal { _ = try LiveActivity(event: .end, activity: "m").validated(for: .channel) } == "invalidLiveActivity")
    }

    @Test("Certificate auth is refused (APNs takes Live Activities with token auth only), and so is an update for an unregistered activity")
    func reachability() {
        let device = Device(appID: "a.b", id: "phone", timeZone: "UTC", activities: ["m": LiveActivityToken(token: token, attributesType: nil)])
        let tokenAuth = PushSettings(environment: "sandbox", auth: .token(teamId: "ABCDEFGHIJ", keyId: "ABCDEFGHIJ", key: .content("k")))
        let certificate = PushSettings(environment: "sandbox", auth: .certificate(.pem(certificate: .file("c.pem"), key: nil)))
        let update = LiveActivity(event: .update, activity: "m", contentState: score)
        #expect(refusal { try update.checkReachable(on: device, push: tokenAuth) } == nil)
        #expect(refusal { try update.checkReachable(on: device, push: certificate) } == "liveActivityNeedsTokenAuth")
        #expect(refusal { try LiveActivity(event: .end, activity: "gone").checkReachable(on: device, push: tokenAuth) } == "unknownActivity")
        #expect(refusal { try start().checkReachable(on: device, push: nil) } == nil, "a start needs no registered activity")
    }

    @Test("A start goes to the push-to-start token of its attributes type; an update or end to its activity's token")
    func addresses() {
        let device = Device(appID: "a.b", id: "phone", timeZone: "UTC", pushToStartTokens: ["MatchAttributes": "aa11"],
                            activities: ["m": LiveActivityToken(token: "bb22", attributesType: "MatchAttributes")])
        #expect(device.address(for: start()) == "aa11")
        #expect(device.address(for: start { $0.attributesType = "Other" }) == nil)
        #expect(device.address(for: LiveActivity(event: .update, activity: "m", contentState: score)) == "bb22")
        #expect(device.address(for: LiveActivity(event: .end, activity: "x")) == nil)
    }
}

@Suite("Live Activities: the push")
struct LiveActivityPushTests {
    @Test("The aps carries timestamp, event, content-state, stale and dismissal dates in seconds, relevance-score and attributes")
    func apsKeys() throws {
        let activity = start {
            $0.staleDate = 1_800_000_600
            $0.dismissalDate = 1_800_003_600
            $0.relevanceScore = 0.5
            $0.inputPushToken = true
            $0.alert = .init(title: "Kick-off", body: "Lyon v Nantes")
        }
        let push = try APNsPush(token: token, type: .liveactivity, bundleID: "a.b", aps: activity.aps(timestamp: 1_800_000_000))
        let json = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
        let aps = try #require(json["aps"] as? [String: Any])
        #expect(aps["timestamp"] as? Int == 1_800_000_000)
        #expect(aps["event"] as? String == "start")
        #expect((aps["content-state"] as? [String: Any])?["home"] as? Int == 1)
        #expect(aps["stale-date"] as? Int == 1_800_000_600)
        #expect(aps["dismissal-date"] as? Int == 1_800_003_600)
        #expect(aps["relevance-score"] as? Double == 0.5)
        #expect(aps["attributes-type"] as? String == "MatchAttributes")
        #expect(aps["input-push-token"] as? Int == 1)
        #expect(push.topic == "a.b.push-type.liveactivity")
        #expect(push.kindHeaders.first { $0.name == "apns-push-type" }?.value == "liveactivity")
    }

    @Test("A Live Activity payload over 4096 bytes is refused when scheduled, not when it fires")
    func payloadLimit() {
        let big = start { $0.attributes = .object(["blob": .string(String(repeating: "x", count: 4100))]) }
        #expect(refusal { try NotificationContent(liveActivity: big).checkAlertPayload() } == "payloadTooLarge")
        #expect(refusal { try NotificationContent(liveActivity: start()).checkAlertPayload() } == nil)
    }

    @Test("A broadcast goes to /4/broadcasts/apps/{bundle} with apns-channel-id and the liveactivity topic")
    func broadcast() throws {
        let update = LiveActivity(event: .update, contentState: score)
        let push = try APNsPush(channelID: "dHN0LXNyY2gtY2hubA==", bundleID: "a.b", aps: update.aps(timestamp: 1))
        #expect(push.path == "/4/broadcasts/apps/a.b")
        #expect(push.ownHeaders.contains { $0.name == "apns-channel-id" && $0.value == "dHN0LXNyY2gtY2hubA==" })
        #expect(push.topic == "a.b.push-type.liveactivity")
        #expect(refusal { _ = try APNsPush(channelID: "not base64!", bundleID: "a.b", aps: update.aps(timestamp: 1)) } == "invalidChannelId")
    }

    @Test("Live Activities run on iOS: android and web installations refuse them")
    func iosOnly() {
        let content = NotificationContent(liveActivity: start())
        #expect(refusal { try content.checkFits(.ios, notificationID: "n") } == nil)
        #expect(refusal { try content.checkFits(.android, notificationID: "n") } == "liveActivityNotForPlatform")
        #expect(refusal { try content.checkFits(.web, notificationID: "n") } == "liveActivityNotForPlatform")
    }
}

@Suite("Every push type's payload rules")
struct PushTypePayloadRuleTests {
    @Test("liveactivity: an integer timestamp, an event, content-state on start and update, attributes on start")
    func liveActivityPayload() {
        var aps = minimalAPS(for: .liveactivity)
        #expect(refusal { try APNsPushType.liveactivity.checkRules(of: aps) } == nil)
        aps.timestamp = nil
        #expect(refusal { try APNsPushType.liveactivity.checkRules(of: aps) } == "invalidLiveActivityPayload")
        aps = minimalAPS(for: .liveactivity)
        aps.event = "pause"
        #expect(refusal { try APNsPushType.liveactivity.checkRules(of: aps) } == "invalidLiveActivityPayload")
        aps = minimalAPS(for: .liveactivity)
        aps.contentState = nil
        #expect(refusal { try APNsPushType.liveactivity.checkRules(of: aps) } == "invalidLiveActivityPayload")
        aps.event = "end"
        #expect(refusal { try APNsPushType.liveactivity.checkRules(of: aps) } == nil, "an end may carry no content-state")
        aps = minimalAPS(for: .liveactivity)
        aps.event = "start"
        #expect(refusal { try APNsPushType.liveactivity.checkRules(of: aps) } == "invalidLiveActivityPayload")
    }

    @Test("widgets and controls: content-changed true; background: content-available only; the others take any aps",
          arguments: APNsPushType.allCases)
    func otherTypes(type: APNsPushType) {
        #expect(refusal { try type.checkRules(of: minimalAPS(for: type)) } == nil)
        let plain = APS(alert: .text("hi"))
        let expected: String? = switch type {
        case .widgets, .controls: "invalidWidgetsPayload"
        case .background: "invalidBackgroundPayload"
        case .liveactivity: "invalidLiveActivityPayload"
        default: nil
        }
        #expect(refusal { try type.checkRules(of: plain) } == expected)
    }
}

@Suite("Broadcast channels")
struct BroadcastChannelTests {
    @Test("A channel's audience id is outside the device id alphabet, so no device can take it")
    func audienceID() {
        let id = BroadcastChannel.audienceID(name: "match-42")
        #expect(!Identifier.isValid(id))
        #expect(BroadcastChannel.name(audienceID: id) == "match-42")
        #expect(BroadcastChannel.name(audienceID: "phone") == nil)
    }

    @Test("messageStoragePolicy is 0 or 1")
    func policy() {
        #expect(refusal { try BroadcastChannel.validate(name: "m", messageStoragePolicy: 1) } == nil)
        #expect(refusal { try BroadcastChannel.validate(name: "m", messageStoragePolicy: 2) } == "invalidMessageStoragePolicy")
        #expect(refusal { try BroadcastChannel.validate(name: "a b", messageStoragePolicy: 0) } == "invalidId")
    }

    @Test("The management host follows the push environment unless channelsEnvironment is set")
    func managementHost() throws {
        let auth = PushSettings.Auth.token(teamId: "ABCDEFGHIJ", keyId: "ABCDEFGHIJ", key: .content("k"))
        #expect(try PushSettings(environment: "sandbox", auth: auth).channelsEndpoint() == ("api-manage-broadcast.sandbox.push.apple.com", 2195))
        #expect(try PushSettings(environment: "production", auth: auth).channelsEndpoint() == ("api-manage-broadcast.push.apple.com", 2196))
        var settings = PushSettings(environment: "production", auth: auth)
        settings.channelsEnvironment = "sandbox"
        #expect(try settings.channelsEndpoint() == ("api-manage-broadcast.sandbox.push.apple.com", 2195))
        #expect(try PushSettings(environment: "https://127.0.0.1:8443", auth: auth).channelsEndpoint() == ("127.0.0.1", 8443))
    }
}
