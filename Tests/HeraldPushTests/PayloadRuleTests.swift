import Foundation
import HeraldCore
import HeraldPush
import HeraldSandbox
import HeraldTestSupport
import Testing

/// A push whose JSON payload is exactly `bytes` long.
private func push(_ type: APNsPushType, to token: String, payloadBytes bytes: Int) throws -> APNsPush {
    let empty = try APNsPush(token: token, type: type, bundleID: Dev.bundleID, aps: APS(alert: .text("")))
    let text = String(repeating: "x", count: bytes - empty.payload.count)
    return try APNsPush(token: token, type: type, bundleID: Dev.bundleID, aps: APS(alert: .text(text)))
}

/// The reason a push is refused with before sending, or nil when it is built.
private func refusal(_ make: () throws -> APNsPush) -> String? {
    do {
        _ = try make()
        return nil
    } catch let error as HeraldError {
        return error.reason.rawValue
    } catch {
        return "\(error)"
    }
}

@Suite("Payload limits and push-type rules are enforced before anything is sent")
struct PayloadRuleTests {
    @Test("an alert payload of 4096 bytes is sent; 4097 bytes is refused with payloadTooLarge and never reaches APNs")
    func alertPayloadLimit() async throws {
        let token = deviceToken(700)
        let atLimit = try push(.alert, to: token, payloadBytes: 4096)
        #expect(atLimit.payload.count == 4096)
        #expect(refusal { try push(.alert, to: token, payloadBytes: 4097) } == "payloadTooLarge")

        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let outcome = try #require(await gateway.send([atLimit], app: sandbox.app()).first)
                #expect(outcome.status == 200)
                #expect(sandbox.everything.map(\.apnsId) == [atLimit.id])
            }
        }
    }

    @Test("a VoIP payload may be 5120 bytes, goes to the .voip topic, and 5121 bytes is refused")
    func voipPayloadLimit() async throws {
        let token = deviceToken(701)
        let atLimit = try push(.voip, to: token, payloadBytes: 5120)
        #expect(atLimit.payload.count == 5120)
        #expect(atLimit.topic == Dev.bundleID + ".voip")
        #expect(atLimit.priority == 10)
        #expect(refusal { try push(.voip, to: token, payloadBytes: 5121) } == "payloadTooLarge")
        #expect(refusal { try push(.alert, to: token, payloadBytes: 5120) } == "payloadTooLarge",
                "only VoIP gets the larger limit")

        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let outcome = try #require(await gateway.send([atLimit], app: sandbox.app()).first)
                #expect(outcome.status == 200)
                let entry = try #require(sandbox.inbox(token).first)
                #expect(entry.pushType == .voip)
                #expect(entry.topic == Dev.bundleID + ".voip")
                #expect(sandbox.everything.count == 1)
            }
        }
    }

    @Test("a background push holds only content-available: 1, at priority 5, to the bundle id")
    func backgroundRules() async throws {
        let token = deviceToken(702)
        let silent = APS(contentAvailable: 1)
        #expect(refusal {
            try APNsPush(token: token, type: .background, bundleID: Dev.bundleID,
                         aps: APS(alert: .text("hi"), contentAvailable: 1))
        } == "invalidBackgroundPayload")
        #expect(refusal {
            try APNsPush(token: token, type: .background, bundleID: Dev.bundleID, aps: APS(badge: 1, contentAvailable: 1))
        } == "invalidBackgroundPayload")
        #expect(refusal {
            try APNsPush(token: token, type: .background, bundleID: Dev.bundleID, aps: APS())
        } == "invalidBackgroundPayload")
        #expect(refusal {
            try APNsPush(token: token, type: .background, bundleID: Dev.bundleID, priority: 10, aps: silent)
        } == "invalidPriority")
        #expect(refusal {
            try APNsPush(token: token, type: .background, bundleID: Dev.bundleID, topic: Dev.bundleID + ".voip", aps: silent)
        } == "invalidTopic")

        let background = try APNsPush(token: token, type: .background, bundleID: Dev.bundleID, aps: silent,
                                      custom: ["sync": .bool(true)])
        #expect(background.priority == 5)
        #expect(background.topic == Dev.bundleID)
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let outcome = try #require(await gateway.send([background], app: sandbox.app()).first)
                #expect(outcome.status == 200)
                let entry = try #require(sandbox.inbox(token).first)
                #expect(entry.pushType == .background)
                #expect(entry.priority == 5)
                #expect(entry.aps == ["content-available": .number(1)])
                #expect(sandbox.everything.count == 1)
            }
        }
    }

    @Test("VoIP pushes take priority 10 and the .voip topic only")
    func voipRules() {
        let token = deviceToken(703)
        let aps = APS(alert: .text("call"))
        #expect(refusal { try APNsPush(token: token, type: .voip, bundleID: Dev.bundleID, priority: 5, aps: aps) }
                == "invalidPriority")
        #expect(refusal { try APNsPush(token: token, type: .voip, bundleID: Dev.bundleID, topic: Dev.bundleID, aps: aps) }
                == "invalidTopic")
    }

    @Test("header rules: collapse ids over 64 bytes, bad apns-ids, negative expirations and bad tokens are refused")
    func headerRules() {
        let token = deviceToken(704)
        let aps = APS(alert: .text("hi"))
        #expect(refusal {
            try APNsPush(token: token, type: .alert, bundleID: Dev.bundleID, collapseID: String(repeating: "c", count: 64), aps: aps)
        } == nil)
        #expect(refusal {
            try APNsPush(token: token, type: .alert, bundleID: Dev.bundleID, collapseID: String(repeating: "c", count: 65), aps: aps)
        } == "collapseIdTooLong")
        #expect(refusal { try APNsPush(token: token, type: .alert, bundleID: Dev.bundleID, id: "not-a-uuid", aps: aps) }
                == "invalidPushId")
        #expect(refusal { try APNsPush(token: token, type: .alert, bundleID: Dev.bundleID, expiration: -1, aps: aps) }
                == "invalidExpiration")
        #expect(refusal { try APNsPush(token: "xyz", type: .alert, bundleID: Dev.bundleID, aps: aps) } == "invalidToken")
        #expect(refusal { try APNsPush(token: token, type: .mdm, bundleID: Dev.bundleID, aps: aps) } == "missingTopic")
        #expect(refusal {
            try APNsPush(token: token, type: .alert, bundleID: Dev.bundleID, aps: aps, custom: ["aps": .null])
        } == "invalidData")

        let upper = try? APNsPush(token: token, type: .alert, bundleID: Dev.bundleID,
                                  id: "6F1A3C2E-9B8D-4E5F-A1B2-C3D4E5F60718", aps: aps)
        #expect(upper?.id == "6f1a3c2e-9b8d-4e5f-a1b2-c3d4e5f60718", "apns-id is sent as a lowercase UUID")
    }

    @Test("each push type gets the topic suffix Apple documents", arguments: [
        (APNsPushType.alert, ""), (.background, ""), (.voip, ".voip"), (.complication, ".complication"),
        (.fileprovider, ".pushkit.fileprovider"), (.liveactivity, ".push-type.liveactivity"),
        (.location, ".location-query"), (.pushtotalk, ".voip-ptt"), (.widgets, ".push-type.widgets"),
        (.controls, ".push-type.controls"),
    ])
    func topicSuffixes(_ type: APNsPushType, _ suffix: String) throws {
        let push = try APNsPush(token: deviceToken(705), type: type, bundleID: Dev.bundleID, aps: minimalAPS(for: type))
        #expect(push.topic == Dev.bundleID + suffix)
        #expect(push.headers.first { $0.name == "apns-topic" }?.value == Dev.bundleID + suffix)
        #expect(push.headers.first { $0.name == "apns-push-type" }?.value == type.rawValue)
    }
}
