import Foundation
import HTTPTypes
import Hummingbird
import Testing

// Idempotent retries: a client that lost an answer sends the same request again under the same
// `Idempotency-Key`; the server runs it once and answers the resend with the first answer.

@Suite("Idempotency-Key on push and schedule")
struct IdempotencyKeyTests {
    static func push(_ herald: GuardedHerald, key: String?, keyHeader: String? = nil, body: String = "Wake up") async throws -> Reply {
        let json: [String: Any] = ["notifications": [["app": GuardApps.alarm, "tokens": [guardToken(1)], "type": "alert",
                                                      "aps": ["alert": ["body": body]]]]]
        return try await herald.send(.post, "/v1/push", body: API.encode(json), key: key ?? GuardKeys.admin,
                                     headers: keyHeader.map { ["Idempotency-Key": $0] } ?? [:])
    }

    @Test("A push resent with the same Idempotency-Key is sent once; the resend gets the first results, marked Idempotent-Replayed")
    func pushIsSentOnce() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let first = try await Self.push(herald, key: nil, keyHeader: "push-1")
            #expect(first.status == .ok, "\(first.text)")
            let again = try await Self.push(herald, key: nil, keyHeader: "push-1")
            #expect(again.status == .ok)
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(again.json == first.json)
            #expect(herald.inbox(guardToken(1)).count == 1)
            // Another key, or none, is another push.
            _ = try await Self.push(herald, key: nil, keyHeader: "push-2")
            _ = try await Self.push(herald, key: nil)
            #expect(herald.inbox(guardToken(1)).count == 3)
        }
    }

    @Test("The same key from another caller is another request: keys are scoped to the caller and the path")
    func keysAreScopedToTheCaller() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            _ = try await Self.push(herald, key: GuardKeys.admin, keyHeader: "shared")
            let other = try await Self.push(herald, key: GuardKeys.alarm, keyHeader: "shared")
            #expect(other.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            #expect(herald.inbox(guardToken(1)).count == 2)
        }
    }

    @Test("A schedule resent after its notification was cancelled does not bring it back")
    func scheduleResendChangesNothing() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let path = "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)/notifications"
            let body = API.encode(["id": "standup", "fireDate": "2030-01-01T09:00:00Z", "alert": ["body": "Standup"]])
            let first = try await herald.send(.post, path, body: body, headers: ["Idempotency-Key": "schedule-1"])
            #expect(first.status == .created, "\(first.text)")
            #expect(try await herald.delete("\(path)/standup").status == .noContent)
            let again = try await herald.send(.post, path, body: body, headers: ["Idempotency-Key": "schedule-1"])
            #expect(again.status == .created)
            #expect(again.json == first.json)
            #expect(try await herald.get("\(path)/standup").status == .notFound)
        }
    }

    @Test("A refused request is forgotten: the corrected request under the same key runs")
    func refusalsAreForgotten() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let path = "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)/notifications"
            let bad = try await herald.send(.post, path, body: API.encode(["id": "x", "fireDate": "not a date", "alert": ["body": "x"]]),
                                            headers: ["Idempotency-Key": "fix-me"])
            #expect(bad.status == .unprocessableContent)
            let good = try await herald.send(.post, path, body: API.encode(["id": "x", "fireDate": "2030-01-01T09:00:00Z",
                                                                            "alert": ["body": "x"]]),
                                             headers: ["Idempotency-Key": "fix-me"])
            #expect(good.status == .created, "\(good.text)")
            let long = try await herald.send(.post, path, body: API.encode(["id": "y"]),
                                             headers: ["Idempotency-Key": String(repeating: "k", count: 256)])
            expectError(long, status: .badRequest, reason: "invalidIdempotencyKey")
        }
    }

    @Test("Events resent under one Idempotency-Key count once: a sum kind is not added twice")
    func eventsCountOnce() async throws {
        try await withGuardedHerald { herald in
            let app = try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["customKinds": [["name": "unreadCount", "rule": "sum"]]])
            #expect(app.status == .created, "\(app.text)")
            _ = try await herald.put("/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)", json: ["timeZone": "UTC"])
            let path = "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)/events"
            let body = API.encode(["events": [["kind": "unreadCount", "value": 2]]])
            let first = try await herald.send(.post, path, body: body, headers: ["Idempotency-Key": "events-1"])
            #expect(first.status == .ok, "\(first.text)")
            let again = try await herald.send(.post, path, body: body, headers: ["Idempotency-Key": "events-1"])
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let backlog = try await herald.get("\(path)/backlog")
            #expect(backlog.json["notifications"][0]["value"] == .number(2), "\(backlog.text)")
        }
    }

    @Test("The same key with a different body is refused: 422 idempotencyKeyReused, and nothing is sent or stored")
    func keyReusedWithAnotherBody() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            _ = try await Self.push(herald, key: nil, keyHeader: "reused", body: "first")
            let reused = try await herald.expectRefused(.unprocessableContent, "idempotencyKeyReused") {
                try await Self.push(herald, key: nil, keyHeader: "reused", body: "second")
            }
            #expect(reused.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            #expect(herald.inbox(guardToken(1)).count == 1)
        }
    }
}
