import Foundation
import HeraldCrypto
import HeraldSandbox
import Testing

// "An idempotency key means a resend does not push twice. A template maps the JSON body to a push."
// Plus the limits every request has: a bounded body, and admin-only hook management.

@Suite("Signed inbound hooks: template, idempotency and limits")
struct HookDeliveryTests {
    @Test("A resend with the same Idempotency-Key gets the first answer, marked Idempotent-Replayed: true, and pushes nothing more")
    func idempotencyKeyHeader() async throws {
        try await withOrdersHook { herald in
            let body = HookFixture.event()
            let first = try await herald.sendSignedHook(body: body, idempotencyKey: "delivery-7781")
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.idempotentReplayed == nil)
            #expect(herald.inbox(HookFixture.token).count == 1)

            // The sender retries a minute later, signing afresh, as senders do.
            herald.clock.advance(to: herald.clock.now().addingTimeInterval(60))
            let before = try await herald.snapshot(hooks: [HookFixture.name])
            let resend = try await herald.sendSignedHook(body: body, idempotencyKey: "delivery-7781")
            #expect(resend.status == .ok, "\(resend.text)")
            #expect(resend.idempotentReplayed == "true")
            #expect(resend.json == first.json, "the resend gets the first answer")
            #expect(herald.inbox(HookFixture.token).count == 1, "the resend pushed again")
            #expect(try await herald.snapshot(hooks: [HookFixture.name]) == before)

            // Another key is another event.
            let other = try await herald.sendSignedHook(body: body, idempotencyKey: "delivery-7782")
            #expect(other.status == .ok)
            #expect(other.idempotentReplayed == nil)
            #expect(herald.inbox(HookFixture.token).count == 2)
        }
    }

    @Test("The template's idempotencyKey pointer recognises a resend without any header")
    func idempotencyKeyPointer() async throws {
        var template = HookFixture.template
        template["idempotencyKey"] = "/eventId"
        try await withOrdersHook(definition: HookFixture.definition(template: template)) { herald in
            let first = try await herald.sendSignedHook(body: HookFixture.event(eventID: "evt_1"))
            #expect(first.status == .ok, "\(first.text)")
            herald.clock.advance(to: herald.clock.now().addingTimeInterval(5))
            let resend = try await herald.sendSignedHook(body: HookFixture.event(eventID: "evt_1"))
            #expect(resend.status == .ok)
            #expect(resend.idempotentReplayed == "true")
            #expect(resend.json == first.json)
            #expect(herald.inbox(HookFixture.token).count == 1)
            let next = try await herald.sendSignedHook(body: HookFixture.event(status: "delivered", eventID: "evt_2"))
            #expect(next.idempotentReplayed == nil)
            #expect(herald.inbox(HookFixture.token).count == 2)
        }
    }

    @Test("A refused request does not use up its idempotency key: the genuine one still pushes")
    func refusalKeepsTheKeyFree() async throws {
        try await withOrdersHook { herald in
            let body = HookFixture.event()
            try await herald.expectRefused(.unauthorized, "invalidSignature", hooks: [HookFixture.name]) {
                try await herald.deliverHook(body: body, signature: herald.signature(body, secret: "whsec-an-attackers-guess-00"),
                                             idempotencyKey: "delivery-1")
            }
            try await herald.expectRefused(.unprocessableContent, "templateFailed", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: HookFixture.event(status: nil), idempotencyKey: "delivery-1")
            }
            let genuine = try await herald.sendSignedHook(body: body, idempotencyKey: "delivery-1")
            #expect(genuine.status == .ok, "\(genuine.text)")
            #expect(genuine.idempotentReplayed == nil)
            #expect(herald.inbox(HookFixture.token).count == 1)
        }
    }

    @Test("A template pointing at a field the body lacks is refused: 422 templateFailed naming the pointer")
    func templateMissingField() async throws {
        try await withOrdersHook { herald in
            let reply = try await herald.expectRefused(.unprocessableContent, "templateFailed", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: HookFixture.event(status: nil))
            }
            #expect(reply.json["error"]["message"].string?.contains("/order/status") == true, "\(reply.text)")
        }
    }

    @Test("A template whose target pointer is missing is refused the same way, naming it")
    func templateMissingTarget() async throws {
        try await withOrdersHook { herald in
            let body = API.encode(["type": "order.updated", "order": ["id": "o-1", "status": "shipped"]])
            let reply = try await herald.expectRefused(.unprocessableContent, "templateFailed", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: body)
            }
            #expect(reply.json["error"]["message"].string?.contains("/customer/deviceToken") == true, "\(reply.text)")
        }
    }

    @Test("An event the filter does not match is answered {pushed: false, filtered: true} and pushes nothing")
    func filterNotMatching() async throws {
        try await withOrdersHook { herald in
            let before = try await herald.snapshot(hooks: [HookFixture.name])
            // Other event types are skipped before the template looks for its fields.
            for body in [HookFixture.event(type: "order.created"), API.encode(["type": "customer.deleted"]),
                         API.encode(["something": ["else": true]])] {
                let reply = try await herald.sendSignedHook(body: body)
                #expect(reply.status == .ok, "\(reply.text)")
                #expect(reply.json["pushed"].bool == false)
                #expect(reply.json["filtered"].bool == true)
                #expect(reply.json["results"].array?.isEmpty ?? true)
            }
            #expect(herald.pushedCount == 0)
            #expect(try await herald.snapshot(hooks: [HookFixture.name]) == before)
        }
    }

    @Test("A template may target registered devices by id: the push goes to the device's token")
    func templateTargetsDevices() async throws {
        let template: [String: Any] = ["devices": "/user/devices", "title": "{/headline}", "badge": "/unread",
                                       "data": ["articleId": "/article"]]
        try await withOrdersHook(definition: HookFixture.definition(template: template)) { herald in
            let body = API.encode(["user": ["devices": [GuardApps.device, "unknown-tablet"]], "headline": "Extra!",
                                   "unread": 3, "article": ["id": 12]])
            let reply = try await herald.sendSignedHook(body: body)
            #expect(reply.status == .ok, "\(reply.text)")
            let rows = reply.json["results"].array ?? []
            #expect(rows.contains { $0["device"].string == GuardApps.device && $0["status"].int == 200 }, "\(reply.text)")
            #expect(rows.contains { $0["device"].string == "unknown-tablet" && $0["status"].int == 404 }, "\(reply.text)")
            let inbox = herald.inbox(HookFixture.token)
            try #require(inbox.count == 1)
            #expect(inbox[0].payload["aps"]["alert"]["title"].string == "Extra!")
            #expect(inbox[0].payload["aps"]["badge"].int == 3)
            #expect(inbox[0].payload["articleId"]["id"].int == 12)
        }
    }

    @Test("A body over api.maxBodyBytes is refused: 413 bodyTooLarge, even when correctly signed")
    func oversizedBody() async throws {
        var options = GuardOptions()
        options.maxBodyBytes = 2048
        try await withOrdersHook(options: options) { herald in
            let big = API.encode(["type": "order.updated", "order": ["id": "o-1", "status": "shipped"],
                                  "customer": ["deviceToken": HookFixture.token],
                                  "notes": String(repeating: "x", count: 4096)])
            try await herald.expectRefused(.contentTooLarge, "bodyTooLarge", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: big)
            }
            // Just under the limit is fine.
            let fits = API.encode(["type": "order.updated", "order": ["id": "o-1", "status": "shipped"],
                                   "customer": ["deviceToken": HookFixture.token],
                                   "notes": String(repeating: "x", count: 1500)])
            let reply = try await herald.sendSignedHook(body: fits)
            #expect(reply.status == .ok, "\(reply.text)")
        }
    }

    @Test("A correctly signed body that is not JSON is refused: 400 invalidJSON")
    func signedButNotJSON() async throws {
        try await withOrdersHook { herald in
            try await herald.expectRefused(.badRequest, "invalidJSON", hooks: [HookFixture.name]) {
                try await herald.sendSignedHook(body: Data("type=order.updated&order=o-1".utf8))
            }
        }
    }

    @Test("Hook management needs an admin key: none is 401, an app key 403, the admin key 201 then 200")
    func hookManagementIsAdminOnly() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: HookFixture.token)
            let definition = API.encode(HookFixture.definition())
            try await herald.expectRefused(.unauthorized, "unauthorized", hooks: [HookFixture.name]) {
                try await herald.send(.put, "/v1/hooks/orders", body: definition, key: nil)
            }
            try await herald.expectRefused(.forbidden, "forbidden", hooks: [HookFixture.name]) {
                try await herald.send(.put, "/v1/hooks/orders", body: definition, key: GuardKeys.alarm)
            }
            let created = try await herald.send(.put, "/v1/hooks/orders", body: definition, key: GuardKeys.admin)
            #expect(created.status == .created, "\(created.text)")
            let replaced = try await herald.send(.put, "/v1/hooks/orders", body: definition, key: GuardKeys.admin)
            #expect(replaced.status == .ok, "\(replaced.text)")

            let shown = try await herald.get("/v1/hooks/orders")
            #expect(shown.status == .ok)
            #expect(shown.json["app"].string == GuardApps.alarm)
            #expect(shown.json["secrets"].int == 1)
            #expect(!shown.text.contains(HookFixture.secret), "GET echoed the secret")
            for key in [nil, GuardKeys.alarm] as [String?] {
                let read = try await herald.get("/v1/hooks/orders", key: key)
                #expect(read.status == (key == nil ? .unauthorized : .forbidden))
                #expect(!read.text.contains(HookFixture.secret))
            }

            try await herald.expectRefused(.unauthorized, "unauthorized", hooks: [HookFixture.name]) {
                try await herald.delete("/v1/hooks/orders", key: nil)
            }
            let deleted = try await herald.delete("/v1/hooks/orders")
            #expect(deleted.status == .noContent)
            let body = HookFixture.event()
            let gone = try await herald.sendSignedHook(body: body)
            expectError(gone, status: .notFound, reason: "hookNotFound")
            #expect(herald.pushedCount == 0)
        }
    }

    @Test("A bad hook definition is refused with its reason and nothing is stored", arguments: BadHookDefinition.allCases)
    func badDefinition(bad: BadHookDefinition) async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: HookFixture.token)
            let reply = try await herald.expectRefused(.unprocessableContent, bad.reason, hooks: [HookFixture.name]) {
                try await herald.put("/v1/hooks/orders", json: bad.definition)
            }
            #expect(!reply.text.contains("short-secret"), "the error quoted the secret")
            #expect(try await herald.get("/v1/hooks/orders").status == .notFound)
        }
    }

    @Test("A hook for an app that does not exist is refused and nothing is stored")
    func hookForUnknownApp() async throws {
        try await withGuardedHerald { herald in
            let reply = try await herald.put("/v1/hooks/orders", json: HookFixture.definition(app: "com.example.nowhere"))
            #expect(reply.status == .notFound, "\(reply.text)")
            #expect(try await herald.get("/v1/hooks/orders").status == .notFound)
        }
    }

    @Test("A hook request that timed out does not wedge its idempotency key: a later resend is answered")
    func timeoutThenResend() async throws {
        var options = GuardOptions()
        // Wide margins: the setup requests (registering the app and the hook) share the timeout, and
        // must fit in it even on a loaded machine.
        options.requestTimeoutMilliseconds = 1500
        options.faults = SandboxFaults(latencyMilliseconds: 4000)
        try await withOrdersHook(options: options) { herald in
            let body = HookFixture.event()
            let slow = try await herald.sendSignedHook(body: body, idempotencyKey: "delivery-slow")
            expectError(slow, status: .serviceUnavailable, reason: "requestTimeout")
            // The gateway is fast again, and the first attempt has long finished one way or the other.
            herald.sandbox.faults = SandboxFaults()
            try await Task.sleep(for: .milliseconds(3000))
            let resend = try await herald.sendSignedHook(body: body, idempotencyKey: "delivery-slow")
            #expect(resend.status == .ok, "the resend of a timed-out request is stuck: \(resend.text)")
            #expect(herald.inbox(HookFixture.token).count >= 1, "the event never reached the device")
        }
    }
}

/// Hook definitions `PUT /v1/hooks/{name}` must refuse, and the reason it gives.
enum BadHookDefinition: String, CaseIterable, Sendable {
    case shortSecret, noSecret, zeroTolerance, tokensAndDevices, pointerWithoutSlash, backgroundWithTitle

    var definition: [String: Any] {
        switch self {
        case .shortSecret: return HookFixture.definition(secrets: ["short-secret"])
        case .noSecret: return HookFixture.definition(secrets: [])
        case .zeroTolerance: return HookFixture.definition(toleranceSeconds: 0)
        case .tokensAndDevices: return HookFixture.definition(template: ["tokens": "/t", "devices": "/d", "title": "x"])
        case .pointerWithoutSlash: return HookFixture.definition(template: ["tokens": "t", "title": "x"])
        case .backgroundWithTitle: return HookFixture.definition(template: ["tokens": "/t", "type": "background", "title": "x"])
        }
    }

    var reason: String {
        switch self {
        case .shortSecret: return "weakWebhookSecret"
        case .noSecret: return "missingWebhookSecret"
        case .zeroTolerance: return "invalidTolerance"
        case .tokensAndDevices, .pointerWithoutSlash, .backgroundWithTitle: return "invalidTemplate"
        }
    }
}
