import Foundation
import HeraldTestSupport
import Testing

private let app = "com.example.alarm"
private let device = "iphone-1"

private func register(on server: ServerProcess) async throws {
    let appReply = try await http("PUT", "\(server.baseURL)/v1/apps/\(app)", json: [:])
    try #require(appReply.status == 201)
    let deviceReply = try await http("PUT", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)",
                                     json: ["timeZone": "Europe/Paris"])
    try #require(deviceReply.status == 201)
}

private func schedule(on server: ServerProcess, _ fields: [String: Any]) async throws {
    var body = fields
    body["alert"] = ["body": "\(fields["id"] ?? "")"]
    let reply = try await http("POST", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)/notifications", json: body)
    try #require(reply.status == 201, "scheduling \(fields) failed: \(String(decoding: reply.body, as: UTF8.self))")
}

private func pending(on server: ServerProcess) async throws -> [JSONObject] {
    try await http("GET", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)/notifications").json.objects("notifications")
}

private func deliveries(on server: ServerProcess) async throws -> [JSONObject] {
    try await http("GET", "\(server.baseURL)/v1/apps/\(app)/devices/\(device)/deliveries?limit=1000")
        .json.objects("deliveries")
}

/// Waits until nothing is pending in the deliveries (`channel` settled) and `count` are there.
private func settledDeliveries(on server: ServerProcess, count: Int) async throws -> [JSONObject]? {
    try await eventually(timeout: .seconds(10), interval: .milliseconds(50)) { () -> [JSONObject]? in
        let found = try await deliveries(on: server)
        return found.count >= count && found.allSatisfy({ $0.string("outcome") != "pending" }) ? found : nil
    }
}

@Suite("Durability across kill -9")
struct DurabilityTests {
    @Test("Everything acknowledged before kill -9 survives; past-due one-shots fire exactly once after restart, marked late")
    func killNineThenRestart() async throws {
        try await withScratch { scratch in
            let arguments = ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory]
            let first = try await ServerProcess.start(arguments: arguments, in: scratch)
            let fireDate: Date
            do {
                try await register(on: first)
                // Far enough ahead that a loaded CI machine still schedules everything before it.
                fireDate = wholeSecond(after: 6)
                try await schedule(on: first, ["id": "soon-1", "fireDate": utc(fireDate)])
                try await schedule(on: first, ["id": "soon-2", "fireDate": utc(fireDate.addingTimeInterval(0.25))])
                try await schedule(on: first, ["id": "hourly", "fireDate": utc(fireDate), "repeat": ["unit": "hour"]])
                try await schedule(on: first, ["id": "tomorrow", "fireDate": utc(fireDate.addingTimeInterval(86_400))])
                try await schedule(on: first, ["id": "new-year", "fireDate": "2031-01-01T00:00", "timeZone": "Europe/Paris"])
                // kill -9 as soon as the last one was acknowledged, before anything is due.
                try await first.crash()
            } catch {
                await first.stop()
                throw error
            }
            try #require(Date() < fireDate, "the server must die before the fire date for this test to mean anything")

            // Stay down until the one-shots are well past due (more than lateAfter, 1 s).
            let downUntil = fireDate.addingTimeInterval(1.75)
            try await Task.sleep(for: .seconds(max(0, downUntil.timeIntervalSinceNow)))

            let second = try await ServerProcess.start(arguments: arguments, in: scratch)
            do {
                let fired = try #require(try await settledDeliveries(on: second, count: 3),
                                         "the past-due occurrences did not fire after restart")
                // Give a wrongly repeated firing a moment to show up.
                try await Task.sleep(for: .milliseconds(300))
                let all = try await deliveries(on: second)
                #expect(all.count == 3, "each occurrence fires exactly once: \(all.map { $0.string("occurrenceId") ?? "?" })")
                #expect(Set(fired.compactMap { $0.string("occurrenceId") }) == ["soon-1#0", "soon-2#0", "hourly#0"])
                for delivery in fired {
                    #expect(delivery.bool("late") == true, "\(delivery.string("occurrenceId") ?? "?") is marked late")
                    #expect(delivery.int("missed") == 0)
                    #expect(delivery.string("channel") == "inbox" && delivery.string("outcome") == "held",
                            "a device with no token holds its notifications in its inbox")
                }
                let soon1 = fired.first { $0.string("occurrenceId") == "soon-1#0" }
                #expect(soon1?.string("scheduledFor") == utc(fireDate))

                let ids = try await pending(on: second).compactMap { $0.string("id") }
                #expect(ids == ["hourly", "tomorrow", "new-year"], "everything acknowledged is there; fired one-shots are gone")
                let hourly = try await pending(on: second).first { $0.string("id") == "hourly" }
                #expect(hourly?.string("nextFireDate") == utc(fireDate.addingTimeInterval(3600)))
                #expect(hourly?.int("nextOccurrence") == 1)

                // A second crash and restart fires nothing again.
                try await second.crash()
            } catch {
                await second.stop()
                throw error
            }

            let third = try await ServerProcess.start(arguments: arguments, in: scratch)
            do {
                try await Task.sleep(for: .milliseconds(300))
                let again = try await deliveries(on: third)
                #expect(again.count == 3, "no occurrence fires twice across restarts")
                #expect(try await pending(on: third).compactMap { $0.string("id") } == ["hourly", "tomorrow", "new-year"])
                await third.stop()
            } catch {
                await third.stop()
                throw error
            }
        }
    }

    /// More than a minute of downtime (two minute-occurrences must pass), without waiting a
    /// minute: the restarted server's clock runs 62 s ahead of the anchor through the clock-skew
    /// test hook, so to it the server was down across both occurrences.
    @Test("A minute series that missed occurrences while the server was down fires once with missed ≥ 1, then resumes",
          .timeLimit(.minutes(1)))
    func minuteSeriesAfterDowntime() async throws {
        try await withScratch { scratch in
            let arguments = ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory]
            let first = try await ServerProcess.start(arguments: arguments, in: scratch)
            let anchor: Date
            do {
                try await register(on: first)
                anchor = wholeSecond(after: 1.5)
                try await schedule(on: first, ["id": "minutely", "fireDate": utc(anchor), "repeat": ["unit": "minute"]])
                try await first.crash()
            } catch {
                await first.stop()
                throw error
            }
            // Down across two occurrences: anchor and anchor + 60 s, as the restarted server sees it.
            let skew = anchor.addingTimeInterval(62).timeIntervalSinceNow
            let environment = ["HERALD_TEST_CLOCK_SKEW_MS": String(Int(skew * 1000))]
            let second = try await ServerProcess.start(arguments: arguments, environment: environment, in: scratch)
            do {
                let fired = try #require(try await settledDeliveries(on: second, count: 1))
                #expect(fired.count == 1)
                #expect(fired.first?.string("occurrenceId") == "minutely#1")
                #expect(fired.first?.bool("late") == true)
                #expect((fired.first?.int("missed") ?? 0) >= 1)
                let next = try await pending(on: second).first { $0.string("id") == "minutely" }
                #expect(next?.string("nextFireDate") == utc(anchor.addingTimeInterval(120)))
                await second.stop()
            } catch {
                await second.stop()
                throw error
            }
        }
    }
}
