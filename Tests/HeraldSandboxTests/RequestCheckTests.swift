import Foundation
import HeraldCore
import HeraldHTTP2
import HeraldSandbox
import HeraldTestSupport
import Testing

/// One rule broken on an otherwise valid request.
struct BrokenRule: Sendable, CustomTestStringConvertible {
    var name: String
    var reason: APNsReason
    var breakIt: @Sendable (inout TestPush) -> Void

    var testDescription: String { "\(name) → \(reason.status) \(reason.rawValue)" }
}

@Suite("Every request check answers with APNs' status and reason")
struct RequestCheckTests {
    static let rules: [BrokenRule] = [
        BrokenRule(name: "GET instead of POST", reason: .methodNotAllowed) { $0.method = "GET" },
        BrokenRule(name: "PUT instead of POST", reason: .methodNotAllowed) { $0.method = "PUT" },
        BrokenRule(name: "path outside /3/device", reason: .badPath) { $0.path = "/3/devices/\(deviceToken())" },
        BrokenRule(name: "path with an extra segment", reason: .badPath) { $0.path = "/3/device/\(deviceToken())/extra" },
        BrokenRule(name: "empty device token", reason: .missingDeviceToken) { $0.path = "/3/device/" },
        BrokenRule(name: "no device token segment", reason: .missingDeviceToken) { $0.path = "/3/device" },
        BrokenRule(name: "non-hex device token", reason: .badDeviceToken) { $0.path = "/3/device/not-a-token" },
        BrokenRule(name: "duplicate apns-topic", reason: .duplicateHeaders) { $0.headers.append(("apns-topic", "com.example.other")) },
        BrokenRule(name: "duplicate apns-priority", reason: .duplicateHeaders) {
            $0.headers.append(("apns-priority", "10"))
            $0.headers.append(("apns-priority", "10"))
        },
        BrokenRule(name: "unknown push type", reason: .invalidPushType) { $0.set("apns-push-type", "banner") },
        BrokenRule(name: "missing push type", reason: .invalidPushType) { $0.set("apns-push-type", nil) },
        BrokenRule(name: "missing topic", reason: .missingTopic) { $0.set("apns-topic", nil) },
        BrokenRule(name: "empty topic", reason: .missingTopic) { $0.set("apns-topic", "") },
        BrokenRule(name: "topic with spaces", reason: .badTopic) { $0.set("apns-topic", "com example") },
        BrokenRule(name: "voip push without .voip", reason: .badTopic) { $0.set("apns-push-type", "voip") },
        BrokenRule(name: "alert push to a .voip topic", reason: .badTopic) { $0.set("apns-topic", "com.example.herald.voip") },
        BrokenRule(name: "background push to a widgets topic", reason: .badTopic) {
            $0.set("apns-push-type", "background")
            $0.set("apns-topic", "com.example.herald.push-type.widgets")
        },
        BrokenRule(name: "liveactivity push to the bare bundle id", reason: .badTopic) { $0.set("apns-push-type", "liveactivity") },
        BrokenRule(name: "topic that is only the suffix", reason: .badTopic) {
            $0.set("apns-push-type", "voip")
            $0.set("apns-topic", ".voip")
        },
        BrokenRule(name: "alert priority 7", reason: .badPriority) { $0.set("apns-priority", "7") },
        BrokenRule(name: "non-numeric priority", reason: .badPriority) { $0.set("apns-priority", "high") },
        BrokenRule(name: "voip priority 5", reason: .badPriority) {
            $0.set("apns-push-type", "voip")
            $0.set("apns-topic", "com.example.herald.voip")
            $0.set("apns-priority", "5")
        },
        BrokenRule(name: "background priority 10", reason: .badPriority) {
            $0.set("apns-push-type", "background")
            $0.set("apns-priority", "10")
            $0.body = #"{"aps":{"content-available":1}}"#
        },
        BrokenRule(name: "apns-id not a UUID", reason: .badMessageId) { $0.set("apns-id", "message-1") },
        BrokenRule(name: "apns-id UUID without dashes", reason: .badMessageId) { $0.set("apns-id", "6f1a3c2e9b8d4e5fa1b2c3d4e5f60718") },
        BrokenRule(name: "non-numeric expiration", reason: .badExpirationDate) { $0.set("apns-expiration", "tomorrow") },
        BrokenRule(name: "negative expiration", reason: .badExpirationDate) { $0.set("apns-expiration", "-1") },
        BrokenRule(name: "collapse id of 65 bytes", reason: .badCollapseId) { $0.set("apns-collapse-id", String(repeating: "c", count: 65)) },
        BrokenRule(name: "collapse id of 33 two-byte characters", reason: .badCollapseId) {
            $0.set("apns-collapse-id", String(repeating: "é", count: 33))
        },
        BrokenRule(name: "no authorization and no client certificate", reason: .missingProviderToken) { $0.set("authorization", nil) },
        BrokenRule(name: "bearer without a token", reason: .missingProviderToken) { $0.set("authorization", "bearer") },
        BrokenRule(name: "basic instead of bearer", reason: .invalidProviderToken) { $0.set("authorization", "basic dXNlcjpwYXNz") },
        BrokenRule(name: "bearer garbage", reason: .invalidProviderToken) { $0.set("authorization", "bearer not.a.jwt") },
        BrokenRule(name: "empty payload", reason: .payloadEmpty) { $0.body = "" },
        BrokenRule(name: "alert payload of 4097 bytes", reason: .payloadTooLarge) { $0.body = alertBody(bytes: 4097) },
        BrokenRule(name: "voip payload of 5121 bytes", reason: .payloadTooLarge) {
            $0.set("apns-push-type", "voip")
            $0.set("apns-topic", "com.example.herald.voip")
            $0.body = alertBody(bytes: 5121)
        },
        BrokenRule(name: "payload that is not JSON", reason: .payloadEmpty) { $0.body = "hello" },
        BrokenRule(name: "payload that is a JSON array", reason: .payloadEmpty) { $0.body = #"[{"aps":{}}]"# },
        BrokenRule(name: "payload without aps", reason: .payloadEmpty) { $0.body = #"{"alert":"hi"}"# },
        BrokenRule(name: "payload whose aps is not a dictionary", reason: .payloadEmpty) { $0.body = #"{"aps":"hi"}"# },
        BrokenRule(name: "background payload with an alert", reason: .invalidPushType) {
            $0.set("apns-push-type", "background")
            $0.set("apns-priority", "5")
            $0.body = #"{"aps":{"content-available":1,"alert":"hi"}}"#
        },
        BrokenRule(name: "background payload with content-available 0", reason: .invalidPushType) {
            $0.set("apns-push-type", "background")
            $0.set("apns-priority", "5")
            $0.body = #"{"aps":{"content-available":0}}"#
        },
    ]

    @Test("a request that breaks one rule is refused with that rule's reason", arguments: rules)
    func brokenRuleIsRefused(_ rule: BrokenRule) async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            var push = TestPush(authorization: try TestKeys.bearer())
            rule.breakIt(&push)
            let response = try await client.send(push)
            #expect(response.status == rule.reason.status)
            #expect(response.reason == rule.reason.rawValue)
            #expect(response.json["timestamp"] == nil, "only 410 answers carry a timestamp")
            #expect(response.header("content-type")?.hasPrefix("application/json") == true)
            #expect(response.header("apns-id") != nil, "refusals carry an apns-id too")
            #expect(sandbox.allInboxes().isEmpty, "a refused push reaches no inbox")
        }
    }

    @Test("checks run in APNs' order: the path is judged before the headers, the headers before auth and payload")
    func checksRunInOrder() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            var push = TestPush(authorization: nil, body: "")
            push.set("apns-topic", nil)
            #expect(try await client.send(push).reason == "MissingTopic")
            push.path = "/3/device/zz"
            #expect(try await client.send(push).reason == "BadDeviceToken")
            push.method = "GET"
            #expect(try await client.send(push).reason == "MethodNotAllowed")

            var unauthenticated = TestPush(authorization: nil, body: "")
            #expect(try await client.send(unauthenticated).reason == "MissingProviderToken")
            unauthenticated.set("authorization", try TestKeys.bearer())
            #expect(try await client.send(unauthenticated).reason == "PayloadEmpty")
        }
    }

    @Test("a refused request echoes a valid apns-id")
    func refusalEchoesApnsId() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            var push = TestPush(authorization: try TestKeys.bearer(), body: "")
            push.set("apns-id", "0a1b2c3d-0000-4000-8000-000000000001")
            let response = try await client.send(push)
            #expect(response.reason == "PayloadEmpty")
            #expect(response.header("apns-id") == "0a1b2c3d-0000-4000-8000-000000000001")
        }
    }
}
