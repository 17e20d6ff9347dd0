import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPush
import HeraldSandbox
import HeraldStorage
import HeraldTestSupport
import Testing

@Suite("Dead tokens: 410 Unregistered or ExpiredToken and 400 BadDeviceToken stop all sending to a token")
struct TokenInvalidationTests {
    @Test("410 Unregistered: the token is stored invalid with APNs' millisecond timestamp and a token.invalid feedback event")
    func unregisteredIsStoredWithTimestamp() async throws {
        let token = deviceToken(200)
        try await withStore { store in
            try await withSandbox(faults: SandboxFaults(unregistered: [token])) { sandbox in
                let app = sandbox.app()
                _ = try await store.saveApp(app)
                let device = Device(appID: app.id, id: "phone", timeZone: "UTC", token: token)
                _ = try await store.saveDevice(device, now: Date())

                try await withPushGateway(ledger: StoredTokenLedger(store: store)) { gateway in
                    let before = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
                    let first = try #require(await gateway.send([try alert(to: token)], app: app).first)
                    let after = Int64((Date().timeIntervalSince1970 * 1000).rounded(.up))
                    #expect(first.status == 410)
                    #expect(first.reason == "Unregistered")
                    #expect(first.attempts == 1)
                    let timestamp = try #require(first.timestamp, "a 410 carries APNs' timestamp")
                    #expect(timestamp >= before && timestamp <= after, "the timestamp is in milliseconds since the epoch")

                    let invalid = try #require(try await store.invalidToken(appID: app.id, token: token))
                    #expect(invalid.reason == "Unregistered")
                    #expect(invalid.apnsTimestamp == timestamp)

                    let events = try await store.feedbackEvents(after: 0, limit: 10)
                    try #require(events.count == 1)
                    let event = events[0].event
                    #expect(event.type == .tokenInvalid)
                    #expect(event.appID == app.id)
                    #expect(event.payload["token"] == .string(token))
                    #expect(event.payload["reason"] == .string("Unregistered"))
                    #expect(event.payload["timestamp"] == .number(Double(timestamp)))

                    // APNs would now accept the push: if the gateway sent it, the inbox would grow.
                    sandbox.faults = SandboxFaults()
                    let second = try #require(await gateway.send([try alert(to: token)], app: app).first)
                    #expect(second.reason == "tokenInvalidated")
                    #expect(second.status == 410)
                    #expect(second.attempts == 0, "a dead token is not sent to")
                    #expect(sandbox.inbox(token).isEmpty)
                    #expect(sandbox.refusals(token) == 1, "only the first push reached the sandbox")
                    #expect(try await store.feedbackEvents(after: 0, limit: 10).count == 1,
                            "a token already known dead raises no second event")

                    // The device registers the token again: it is valid once more.
                    _ = try await store.saveDevice(device, now: Date())
                    #expect(try await store.invalidToken(appID: app.id, token: token) == nil)
                    let third = try #require(await gateway.send([try alert(to: token)], app: app).first)
                    #expect(third.status == 200)
                    #expect(sandbox.inbox(token).count == 1)
                }
            }
        }
    }

    @Test("400 BadDeviceToken and 410 ExpiredToken also mark the token invalid and raise a feedback event",
          arguments: [APNsReason.badDeviceToken, .expiredToken])
    func otherDeadTokenReasons(_ reason: APNsReason) async throws {
        let token = deviceToken(201)
        try await withStore { store in
            try await withSandbox(faults: SandboxFaults(reasons: [token: reason])) { sandbox in
                let app = sandbox.app()
                _ = try await store.saveApp(app)
                try await withPushGateway(ledger: StoredTokenLedger(store: store)) { gateway in
                    // The environment has accepted a push, so BadDeviceToken is about the token.
                    #expect(await gateway.send([try alert(to: deviceToken(202))], app: app).first?.status == 200)
                    let first = try #require(await gateway.send([try alert(to: token)], app: app).first)
                    #expect(first.status == reason.status)
                    #expect(first.reason == reason.rawValue)
                    #expect(first.attempts == 1)

                    let invalid = try #require(try await store.invalidToken(appID: app.id, token: token))
                    #expect(invalid.reason == reason.rawValue)
                    #expect(invalid.apnsTimestamp == first.timestamp)
                    #expect((first.timestamp != nil) == (reason.status == 410))
                    let events = try await store.feedbackEvents(after: 0, limit: 10)
                    #expect(events.map(\.event.type) == [.tokenInvalid])
                    #expect(events.first?.event.payload["reason"] == .string(reason.rawValue))

                    sandbox.faults = SandboxFaults()
                    let second = try #require(await gateway.send([try alert(to: token)], app: app).first)
                    #expect(second.reason == "tokenInvalidated")
                    #expect(sandbox.inbox(token).isEmpty)
                    #expect(sandbox.refusals(token) == 1)
                }
            }
        }
    }

    @Test("BadDeviceToken before the app's push settings had any push accepted keeps the token; once one is accepted, it counts")
    func badDeviceTokenAfterEnvironmentChange() async throws {
        let stale = deviceToken(210), other = deviceToken(211), good = deviceToken(212)
        try await withStore { store in
            try await withSandbox(faults: SandboxFaults(reasons: [stale: .badDeviceToken, other: .badDeviceToken])) { sandbox in
                var app = sandbox.app()
                _ = try await store.saveApp(app)
                try await withPushGateway(ledger: StoredTokenLedger(store: store)) { gateway in
                    // Nothing accepted yet in this environment: the answer is reported, the token kept.
                    let kept = try #require(await gateway.send([try alert(to: stale)], app: app).first)
                    #expect(kept.status == 400 && kept.reason == "BadDeviceToken")
                    #expect(try await store.invalidToken(appID: app.id, token: stale) == nil)
                    #expect(try await store.feedbackEvents(after: 0, limit: 10).isEmpty)

                    // One accepted push confirms the environment; now BadDeviceToken marks the token dead.
                    #expect(await gateway.send([try alert(to: good)], app: app).first?.status == 200)
                    _ = await gateway.send([try alert(to: stale)], app: app)
                    #expect(try await store.invalidToken(appID: app.id, token: stale)?.reason == "BadDeviceToken")

                    // The environment changes (here: the same sandbox by name): unconfirmed again.
                    app.push?.environment = "https://localhost:\(sandbox.port)"
                    let afterChange = try #require(await gateway.send([try alert(to: other)], app: app).first)
                    #expect(afterChange.reason == "BadDeviceToken")
                    #expect(try await store.invalidToken(appID: app.id, token: other) == nil,
                            "a token of the other environment is not wiped by an environment change")
                }
            }
        }
    }

    @Test("a dead token in a batch only stops its own pushes: the others are delivered")
    func deadTokenInBatch() async throws {
        let dead = deviceToken(202)
        let alive = deviceToken(203)
        try await withStore { store in
            try await withSandbox(faults: SandboxFaults(unregistered: [dead])) { sandbox in
                let app = sandbox.app()
                _ = try await store.saveApp(app)
                try await withPushGateway(ledger: StoredTokenLedger(store: store)) { gateway in
                    let outcomes = await gateway.send([try alert(to: dead), try alert(to: alive), try alert(to: dead)], app: app)
                    #expect(outcomes.map(\.status) == [410, 200, 410])
                    #expect(outcomes.map(\.token) == [dead, alive, dead])
                    #expect(try await store.invalidToken(appID: app.id, token: dead) != nil)
                    #expect(try await store.invalidToken(appID: app.id, token: alive) == nil)
                    #expect(sandbox.inbox(alive).count == 1)
                }
            }
        }
    }

    @Test("other refusals (403, 429, 5xx, other 400s) leave the token valid")
    func otherRefusalsKeepToken() async throws {
        let tokens = [APNsReason.badTopic, .forbidden, .payloadTooLarge, .tooManyProviderTokenUpdates, .internalServerError]
            .enumerated().map { (deviceToken(210 + $0.offset), $0.element) }
        try await withStore { store in
            try await withSandbox(faults: SandboxFaults(reasons: Dictionary(uniqueKeysWithValues: tokens))) { sandbox in
                let app = sandbox.app()
                _ = try await store.saveApp(app)
                try await withPushGateway(ledger: StoredTokenLedger(store: store)) { gateway in
                    let outcomes = await gateway.send(try tokens.map { try alert(to: $0.0) }, app: app)
                    #expect(outcomes.map(\.reason) == tokens.map(\.1.rawValue))
                    for (token, _) in tokens {
                        #expect(try await store.invalidToken(appID: app.id, token: token) == nil)
                    }
                    #expect(try await store.feedbackEvents(after: 0, limit: 10).isEmpty)
                }
            }
        }
    }
}
