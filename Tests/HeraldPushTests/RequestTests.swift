import Foundation
import HeraldCore
import HeraldPush
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Requests: POST /3/device/<token> with the APNs headers, over HTTP/2 and TLS")
struct RequestTests {
    @Test("an alert push lands in the device's inbox with every APNs header it carried, and its provider token is accepted")
    func alertCarriesEveryHeader() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let token = deviceToken(1)
                let id = UUID().uuidString.lowercased()
                let expiration = Int(Date().timeIntervalSince1970) + 3600
                let push = try APNsPush(token: token, type: .alert, bundleID: Dev.bundleID, priority: 5,
                                        expiration: expiration, id: id, collapseID: "score-42",
                                        aps: APS(alert: .content(.init(title: "Goal", body: "2–1")), badge: 3,
                                                 sound: .named("whistle.caf")),
                                        custom: ["matchId": .string("42")])

                let outcomes = await gateway.send([push], app: sandbox.app())
                try #require(outcomes.count == 1)
                #expect(outcomes[0].status == 200)
                #expect(outcomes[0].succeeded)
                #expect(outcomes[0].apnsID == id, "a 200 carries the request's apns-id")
                #expect(outcomes[0].reason == nil)
                #expect(outcomes[0].attempts == 1)

                let inbox = sandbox.inbox(token)
                try #require(inbox.count == 1)
                let entry = inbox[0]
                #expect(entry.headers["apns-push-type"] == "alert")
                #expect(entry.headers["apns-topic"] == Dev.bundleID)
                #expect(entry.headers["apns-priority"] == "5")
                #expect(entry.headers["apns-expiration"] == String(expiration))
                #expect(entry.headers["apns-id"] == id)
                #expect(entry.headers["apns-collapse-id"] == "score-42")
                #expect(entry.pushType == .alert)
                #expect(entry.topic == Dev.bundleID)
                #expect(entry.priority == 5)
                #expect(entry.expiration == expiration)
                #expect(entry.apnsId == id)
                #expect(entry.collapseId == "score-42")
                #expect(entry.credential == .token(keyID: Dev.keyID, teamID: Dev.teamID),
                        "the sandbox verified the ES256 provider token against the dev key")
                #expect(entry.alert?["title"] == .string("Goal"))
                #expect(entry.alert?["body"] == .string("2–1"))
                #expect(entry.aps?["badge"] == .number(3))
                #expect(entry.aps?["sound"] == .string("whistle.caf"))
                if case .object(let root) = entry.payload {
                    #expect(root["matchId"] == .string("42"), "custom keys travel beside aps")
                } else {
                    Issue.record("the payload is not a JSON object")
                }
            }
        }
    }

    @Test("an alert push defaults to priority 10 and a lowercase UUID apns-id")
    func alertDefaults() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let token = deviceToken(2)
                let push = try alert(to: token)
                #expect(push.priority == 10)
                #expect(push.id == push.id.lowercased() && UUID(uuidString: push.id) != nil)

                let outcome = try #require(await gateway.send([push], app: sandbox.app()).first)
                #expect(outcome.status == 200)
                let entry = try #require(sandbox.inbox(token).first)
                #expect(entry.priority == 10)
                #expect(entry.headers["apns-priority"] == "10")
                #expect(entry.apnsId == push.id)
                #expect(entry.headers["apns-expiration"] == nil)
                #expect(entry.headers["apns-collapse-id"] == nil)
            }
        }
    }

    @Test("certificate auth: the app's client certificate authenticates the connection, with no authorization header")
    func certificateAuth() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let token = deviceToken(3)
                let push = try alert(to: token, title: "Signed", body: "by certificate")
                let outcome = try #require(await gateway.send([push], app: sandbox.app(Dev.certificateAuth)).first)
                #expect(outcome.status == 200)
                #expect(outcome.apnsID == push.id)

                let entry = try #require(sandbox.inbox(token).first)
                guard case .certificate(let subject) = entry.credential else {
                    Issue.record("expected certificate auth, got \(entry.credential)")
                    return
                }
                #expect(!subject.isEmpty)
                #expect(entry.headers["authorization"] == nil)
            }
        }
    }

    @Test("a settings change replaces the app's client; the same settings reuse it")
    func clientPerSettings() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let first = try await gateway.client(for: sandbox.app())
                let again = try await gateway.client(for: sandbox.app())
                #expect(first === again)
                let replaced = try await gateway.client(for: sandbox.app(Dev.certificateAuth))
                #expect(replaced !== first)
                #expect(replaced.settings == sandbox.settings(Dev.certificateAuth))

                let token = deviceToken(4)
                let outcome = try #require(await gateway.send([try alert(to: token)], app: sandbox.app(Dev.certificateAuth)).first)
                #expect(outcome.status == 200)
                #expect(sandbox.inbox(token).count == 1)
            }
        }
    }

    @Test("an app without push settings, or with an unreadable key, gets one refusal per push and nothing is sent")
    func unusableSettings() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let pushes = [try alert(to: deviceToken(5)), try alert(to: deviceToken(6))]

                let unconfigured = await gateway.send(pushes, app: App(id: Dev.bundleID))
                #expect(unconfigured.map(\.reason) == ["pushNotConfigured", "pushNotConfigured"])
                #expect(unconfigured.allSatisfy { !$0.succeeded && $0.attempts == 0 })

                var broken = sandbox.app()
                broken.push?.auth = .token(teamId: Dev.teamID, keyId: Dev.keyID, key: .file("/nonexistent/key.p8"))
                let unreadable = await gateway.send(pushes, app: broken)
                #expect(unreadable.map(\.reason) == ["invalidPushCredentials", "invalidPushCredentials"])
                #expect(unreadable.map(\.token) == pushes.map(\.token))
                #expect(sandbox.everything.isEmpty)
            }
        }
    }
}
