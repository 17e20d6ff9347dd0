import Foundation
import HeraldCore
import HeraldHTTP2
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Accepted pushes land in the device's inbox")
struct AcceptedPushTests {
    @Test("a valid alert push is answered 200 with its apns-id and lands in the inbox with its headers")
    func validAlertLandsInInbox() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let token = deviceToken(7)
            let id = "6F1A3C2E-9B8D-4E5F-A1B2-C3D4E5F60718"
            var push = TestPush(token: token.uppercased(), authorization: try TestKeys.bearer(),
                                body: alertBody(title: "Wake up", body: "It is 6:30"))
            push.set("apns-priority", "5")
            push.set("apns-id", id)
            push.set("apns-expiration", "1900000000")
            push.set("apns-collapse-id", "alarm-1")
            push.set("x-custom", "kept")

            let before = Date()
            let response = try await client.send(push)
            #expect(response.status == 200)
            #expect(response.header("apns-id") == id)
            #expect(response.header("apns-unique-id").flatMap(UUID.init(uuidString:)) != nil)
            #expect(response.body.isEmpty)

            let inbox = sandbox.inbox(token: token)
            try #require(inbox.count == 1)
            let entry = inbox[0]
            #expect(entry.token == token, "tokens are kept lowercased")
            #expect(entry.apnsId == id)
            #expect(entry.uniqueId == response.header("apns-unique-id"))
            #expect(entry.pushType == .alert)
            #expect(entry.topic == "com.example.herald")
            #expect(entry.priority == 5)
            #expect(entry.collapseId == "alarm-1")
            #expect(entry.expiration == 1_900_000_000)
            #expect(entry.headers["apns-push-type"] == "alert")
            #expect(entry.headers["apns-topic"] == "com.example.herald")
            #expect(entry.headers["x-custom"] == "kept")
            #expect(entry.headers["authorization"] == nil, "the provider token is a secret and is not kept")
            #expect(entry.credential == .token(keyID: TestKeys.devKeyID, teamID: TestKeys.teamID))
            #expect(entry.receivedAt >= before.addingTimeInterval(-1) && entry.receivedAt <= Date())
            #expect(entry.payload == .object(["aps": .object(["alert": .object(["title": .string("Wake up"),
                                                                                 "body": .string("It is 6:30")])])]))
            #expect(entry.alertSummary == "Wake up: It is 6:30")
            #expect(sandbox.allInboxes().keys.sorted() == [token])
        }
    }

    @Test("without apns-id the sandbox answers with a new lowercase UUID and a default priority")
    func generatedApnsIdIsLowercaseUUID() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let response = try await client.send(TestPush(authorization: try TestKeys.bearer()))
            #expect(response.status == 200)
            let id = try #require(response.header("apns-id"))
            #expect(UUID(uuidString: id) != nil)
            #expect(id == id.lowercased())
            let entry = try #require(sandbox.inbox(token: deviceToken()).first)
            #expect(entry.apnsId == id)
            #expect(entry.priority == 10, "alert pushes default to priority 10")
        }
    }

    @Test("background pushes with only content-available and VoIP pushes up to 5120 bytes are accepted")
    func backgroundAndVoIPAccepted() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            var background = TestPush(token: deviceToken(2), type: "background", authorization: try TestKeys.bearer(),
                                      body: #"{"aps":{"content-available":1},"changed":["alarms"]}"#)
            background.set("apns-priority", "5")
            #expect(try await client.send(background).status == 200)
            let silent = try #require(sandbox.inbox(token: deviceToken(2)).first)
            #expect(silent.priority == 5)
            #expect(silent.alertSummary == "(content-available)")
            #expect(silent.payload == .object(["aps": .object(["content-available": .number(1)]),
                                               "changed": .array([.string("alarms")])]))

            let voip = TestPush(token: deviceToken(3), type: "voip", topic: "com.example.herald.voip",
                                authorization: try TestKeys.bearer(), body: alertBody(bytes: 5120))
            #expect(voip.body.utf8.count == 5120)
            #expect(try await client.send(voip).status == 200)
            #expect(sandbox.inbox(token: deviceToken(3)).first?.pushType == .voip)

            let alert = TestPush(token: deviceToken(4), authorization: try TestKeys.bearer(), body: alertBody(bytes: 4096))
            #expect(try await client.send(alert).status == 200, "4096 bytes is the alert limit, inclusive")
        }
    }

    @Test("the other push types are accepted with Apple's topic suffixes")
    func otherPushTypesWithSuffixes() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            for (index, type) in APNsPushType.allCases.enumerated() {
                let topic = type.topic(bundleID: "com.example.herald") ?? "com.apple.mgmt.External.0f8c"
                var push = TestPush(token: deviceToken(100 + index), type: type.rawValue, topic: topic,
                                    authorization: try TestKeys.bearer(),
                                    body: String(decoding: try JSONEncoder().encode(["aps": minimalAPS(for: type)]), as: UTF8.self))
                push.set("apns-priority", String(type.allowedPriorities.last!))
                let response = try await client.send(push)
                #expect(response.status == 200, "\(type.rawValue) with topic \(topic): \(response.reason ?? "")")
            }
            #expect(sandbox.allInboxes().count == APNsPushType.allCases.count)
        }
    }

    @Test("the inbox keeps notifications in arrival order and clearInboxes empties it")
    func inboxOrderAndClear() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            for index in 1...3 {
                let push = TestPush(authorization: bearer, body: alertBody(title: "n\(index)"))
                #expect(try await client.send(push).status == 200)
            }
            #expect(sandbox.inbox(token: deviceToken()).map(\.alertSummary) == ["n1: World", "n2: World", "n3: World"])
            sandbox.clearInboxes()
            #expect(sandbox.inbox(token: deviceToken()).isEmpty)
            #expect(sandbox.allInboxes().isEmpty)
        }
    }
}
