import Foundation
import HeraldCore
import HeraldSandbox
import Hummingbird
import Testing

// "A payload larger than 4096 bytes is refused before it is sent, with a clear error." A local
// notification is refused when it is scheduled, not when it fires: the push it becomes is built
// and measured then. And a 410 carries a timestamp: a token the device registered again after it
// stays valid.

@Suite("Notifications that can never be delivered are refused when accepted")
struct DeliverabilityTests {
    static let path = "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)"

    /// A schedule body whose alert push is well over 4096 bytes, in the body or in userInfo.
    nonisolated(unsafe) static let oversized: [(label: String, fields: [String: Any])] = [
        ("a 6,000-byte body", notification(fireDate: "2026-11-02T08:00:00Z", body: String(repeating: "x", count: 6000))),
        ("a 5,000-byte userInfo", notification(fireDate: "2026-11-02T08:00:00Z")
            .merging(["userInfo": ["blob": String(repeating: "y", count: 5000)]]) { $1 }),
    ]

    @Test("Scheduling a notification whose alert push exceeds 4096 bytes: 422 payloadTooLarge naming size and limit, nothing stored",
          arguments: 0..<2)
    func oversizedSchedule(index: Int) async throws {
        let label = Self.oversized[index].label
        let body = API.encode(Self.oversized[index].fields)
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let reply = try await herald.expectRefused(.unprocessableContent, "payloadTooLarge") {
                try await herald.send(.post, "\(Self.path)/notifications", body: body)
            }
            let message = reply.json["error"]["message"].string ?? ""
            #expect(message.contains("4096"), "\(label): \(message)")
            #expect(message.range(of: #"payload is \d+ bytes"#, options: .regularExpression) != nil, "\(label): \(message)")
        }
    }

    @Test("Presenting a notification whose alert push exceeds 4096 bytes: 422 payloadTooLarge, nothing sent or recorded")
    func oversizedPresent() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let body = API.encode(Self.oversized[0].fields)
            try await herald.expectRefused(.unprocessableContent, "payloadTooLarge") {
                try await herald.send(.post, "\(Self.path)/present", body: body)
            }
        }
    }

    @Test("A notification well within the limit is still accepted")
    func withinLimit() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let reply = try await herald.post("\(Self.path)/notifications",
                                              json: notification(fireDate: "2026-11-02T08:00:00Z", body: String(repeating: "x", count: 3800)))
            #expect(reply.status == .created, "\(reply.text)")
        }
    }
}

@Suite("A 410 carries a timestamp: a token registered again after it stays valid")
struct TokenTimestampTests {
    /// Pushes to `token` as admin and returns the result row.
    static func push(_ herald: GuardedHerald, _ token: String) async throws -> JSONValue {
        let reply = try await herald.post("/v1/push", json: ["notifications": [["app": GuardApps.alarm, "tokens": [token],
                                                                                "aps": ["alert": "hi"]]]])
        try #require(reply.status == .ok, "\(reply.text)")
        return reply.json["results"][0]
    }

    @Test("A late 410, timestamped before the device registered its token, does not kill the token")
    func lateUnregisteredKeepsFreshToken() async throws {
        let token = guardToken(410)
        var options = GuardOptions()
        // APNs last knew the token dead a minute before the device registered it (at the server's now).
        options.faults = SandboxFaults(unregistered: [token],
                                       unregisteredTimestamp: Int64(Moment.now.timeIntervalSince1970 * 1000) - 60_000)
        try await withGuardedHerald(options: options) { herald in
            try await herald.registerApp(GuardApps.alarm, token: token)
            let first = try await Self.push(herald, token)
            #expect(first["status"].int == 410)
            #expect(first["reason"].string == "Unregistered")
            // Still valid: the next push goes to APNs again rather than being refused locally.
            let second = try await Self.push(herald, token)
            #expect(second["reason"].string == "Unregistered", "the fresh token was invalidated: \(second)")
        }
    }

    @Test("A 410 timestamped after the registration invalidates the token: later pushes are refused locally")
    func currentUnregisteredKillsToken() async throws {
        let token = guardToken(411)
        var options = GuardOptions()
        options.faults = SandboxFaults(unregistered: [token],
                                       unregisteredTimestamp: Int64(Moment.now.timeIntervalSince1970 * 1000) + 60_000)
        try await withGuardedHerald(options: options) { herald in
            try await herald.registerApp(GuardApps.alarm, token: token)
            #expect(try await Self.push(herald, token)["reason"].string == "Unregistered")
            let second = try await Self.push(herald, token)
            #expect(second["reason"].string == "tokenInvalidated", "\(second)")
            #expect(herald.inbox(token).isEmpty)
        }
    }
}
