import Foundation
import HeraldCore
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Admin API")
struct AdminAPITests {
    @Test("inbox and faults round-trip through the admin API")
    func inboxAndFaultsRoundTrip() async throws {
        try await withSandbox { sandbox in
            let admin = AdminClient(port: sandbox.adminPort)
            let health = try await admin.send("GET", "/healthz")
            #expect(health.status == 200)
            #expect(health.json["status"] as? String == "ok")

            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let first = try await client.send(TestPush(token: deviceToken(1), authorization: bearer, body: alertBody(title: "one")))
            _ = try await client.send(TestPush(token: deviceToken(1), authorization: bearer, body: alertBody(title: "two")))
            _ = try await client.send(TestPush(token: deviceToken(2), authorization: bearer))

            let counts = try await admin.send("GET", "/inbox")
            #expect(counts.status == 200)
            #expect(counts.json["counts"] as? [String: Int] == [deviceToken(1): 2, deviceToken(2): 1])
            #expect(counts.json["total"] as? Int == 3)

            let inbox = try await admin.send("GET", "/inbox/\(deviceToken(1).uppercased())")
            #expect(inbox.status == 200)
            struct Inbox: Decodable { var token: String; var notifications: [InboxEntry] }
            let decoded = try JSONDecoder().decode(Inbox.self, from: inbox.body)
            #expect(decoded.token == deviceToken(1))
            #expect(decoded.notifications.map(\.alertSummary) == ["one: World", "two: World"])
            #expect(decoded.notifications.first?.apnsId == first.header("apns-id"))
            // The JSON carries every field; times to the millisecond.
            let held = sandbox.inbox(token: deviceToken(1))
            #expect(zip(decoded.notifications, held).allSatisfy { abs($0.receivedAt.timeIntervalSince($1.receivedAt)) < 0.001 })
            #expect(decoded.notifications.map(\.withoutTime) == held.map(\.withoutTime))

            let faultsJSON = #"{"unregistered":["\#(deviceToken(3))"],"reasons":{"\#(deviceToken(4))":"BadDeviceToken"},"latencyMilliseconds":1}"#
            let put = try await admin.send("PUT", "/faults", body: faultsJSON)
            #expect(put.status == 200)
            let expected = SandboxFaults(unregistered: [deviceToken(3)], reasons: [deviceToken(4): .badDeviceToken], latencyMilliseconds: 1)
            #expect(sandbox.faults == expected)
            let got = try await admin.send("GET", "/faults")
            #expect(try JSONDecoder().decode(SandboxFaults.self, from: got.body) == expected)
            #expect(try await client.send(TestPush(token: deviceToken(3), authorization: bearer)).reason == "Unregistered")
            #expect(try await client.send(TestPush(token: deviceToken(4), authorization: bearer)).reason == "BadDeviceToken")

            let bad = try await admin.send("PUT", "/faults", body: #"{"tooManyRequestsRate":2}"#)
            #expect(bad.status == 400)
            #expect((bad.json["error"] as? [String: Any])?["reason"] as? String == "invalidFaults")
            let unknownReason = try await admin.send("PUT", "/faults", body: #"{"reasons":{"ab":"NoSuchReason"}}"#)
            #expect(unknownReason.status == 400)
            #expect(sandbox.faults == expected, "a refused update changes nothing")

            let cleared = try await admin.send("DELETE", "/inbox")
            #expect(cleared.status == 204)
            #expect(sandbox.allInboxes().isEmpty)
            let empty = try await admin.send("GET", "/inbox")
            #expect(empty.json["total"] as? Int == 0)
        }
    }

    @Test("faults set through the library API show in the admin API")
    func libraryFaultsVisible() async throws {
        try await withSandbox { sandbox in
            sandbox.faults.goAwayAfterStreams = 5
            let got = try await AdminClient(port: sandbox.adminPort).send("GET", "/faults")
            #expect(got.json["goAwayAfterStreams"] as? Int == 5)
        }
    }
}

extension InboxEntry {
    /// The entry with its time zeroed, for comparisons after a millisecond round trip.
    var withoutTime: InboxEntry {
        var copy = self
        copy.receivedAt = Date(timeIntervalSince1970: 0)
        return copy
    }
}
