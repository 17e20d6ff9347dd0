import Foundation
import HeraldCore
import HeraldScheduler
import HeraldTestSupport
import Hummingbird
import Testing

@Suite("Firing, presenting and deliveries")
struct FiringTests {
    @Test("A due occurrence fires once on time: a delivery <id>#0, held in the inbox of a device with no channel, not late, none missed; the one-shot is gone")
    func oneShotFiresOnTime() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "wake-up", fireDate: "2026-11-01T00:01:00Z", title: "Good morning"))
            try await herald.schedule(notification(id: "later", fireDate: "2026-11-01T00:05:00Z"))

            // Nothing is due yet.
            #expect(await herald.server.engine.fireDueBatch() == 0)
            #expect(try await herald.deliveries().isEmpty)

            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)

            let deliveries = try await herald.deliveries()
            try #require(deliveries.count == 1)
            let delivery = deliveries[0]
            #expect(delivery["occurrenceId"].string == "wake-up#0")
            #expect(delivery["notificationId"].string == "wake-up")
            #expect(delivery["scheduledFor"].string == "2026-11-01T00:01:00Z")
            #expect(delivery["firedAt"].string == "2026-11-01T00:01:00Z")
            // The device has no token and no live stream: iOS would hold it until the app runs.
            #expect(delivery["channel"].string == "inbox")
            #expect(delivery["outcome"].string == "held")
            #expect(delivery["late"].bool == false)
            #expect(delivery["missed"].int == 0)

            #expect(try await herald.pending().map(\.["id"].string) == ["later"])
            expectError(try await herald.api.get("\(Fixture.notifications)/wake-up"), status: .notFound,
                        reason: "notificationNotFound")

            // It fired once: another batch finds nothing.
            #expect(await herald.server.engine.fireDueBatch() == 0)
            #expect(try await herald.deliveries().count == 1)
        }
    }

    @Test("A repeating notification fires and advances to its next occurrence")
    func repeatingAdvances() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "daily", fireDate: "2026-11-01T07:30", timeZone: "Europe/Paris",
                                                   repeat: ["unit": "day"]))
            herald.clock.advance(to: Moment.instant("2026-11-01T06:30:00.500Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)

            let delivery = try #require(try await herald.deliveries().first)
            #expect(delivery["occurrenceId"].string == "daily#0")
            #expect(delivery["late"].bool == false, "half a second after is on time")

            let pending = try await herald.pending()
            #expect(pending.count == 1)
            #expect(pending.first?["nextFireDate"].string == "2026-11-02T06:30:00Z")
            #expect(pending.first?["nextOccurrence"].int == 1)

            herald.clock.advance(to: Moment.instant("2026-11-02T06:30:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)
            #expect(try await herald.deliveries().map(\.["occurrenceId"].string) == ["daily#1", "daily#0"])
        }
    }

    @Test("An occurrence fired more than lateAfter past its instant is marked late")
    func lateFiring() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "slow", fireDate: "2026-11-01T00:01:00Z"))
            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:05Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)
            let delivery = try #require(try await herald.deliveries().first)
            #expect(delivery["late"].bool == true)
            #expect(delivery["missed"].int == 0)
            #expect(delivery["scheduledFor"].string == "2026-11-01T00:01:00Z")
            #expect(delivery["firedAt"].string == "2026-11-01T00:01:05Z")
        }
    }

    @Test("Occurrences due together fire together in one batch")
    func batchFiring() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for id in ["a", "b", "c"] {
                try await herald.schedule(notification(id: id, fireDate: "2026-11-01T00:01:00Z"))
            }
            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 3)
            #expect(Set(try await herald.deliveries().compactMap(\.["occurrenceId"].string)) == ["a#0", "b#0", "c#0"])
            #expect(try await herald.pending().isEmpty)
        }
    }

    @Test("A notification cancelled before it is due never fires")
    func cancelledNeverFires() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "gone", fireDate: "2026-11-01T00:01:00Z"))
            #expect(try await herald.api.delete("\(Fixture.notifications)/gone").status == .noContent)
            herald.clock.advance(to: Moment.instant("2026-11-01T00:02:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 0)
            #expect(try await herald.deliveries().isEmpty)
        }
    }

    @Test("A replaced notification fires on its new date, not the old one")
    func replacedFiresOnNewDate() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "moved", fireDate: "2026-11-01T00:01:00Z", body: "old"))
            _ = try await herald.api.post(Fixture.notifications,
                                          json: notification(id: "moved", fireDate: "2026-11-01T00:03:00Z", body: "new"))
            herald.clock.advance(to: Moment.instant("2026-11-01T00:02:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 0)
            #expect(try await herald.deliveries().isEmpty)
            herald.clock.advance(to: Moment.instant("2026-11-01T00:03:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)
            #expect(try await herald.deliveries().first?["scheduledFor"].string == "2026-11-01T00:03:00Z")
        }
    }

    @Test("A floating notification re-timed by a device zone change fires at its new time, not the old one")
    func retimedFloatingFiresAtNewTime() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(timeZone: "Europe/Paris")
            // 2026-11-01T02:00 Paris (CET) is 01:00Z; in New York (EST) it is 07:00Z.
            try await herald.schedule(notification(id: "nap", fireDate: "2026-11-01T02:00", timeZone: "floating"))
            _ = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "America/New_York"])

            herald.clock.advance(to: Moment.instant("2026-11-01T01:00:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 0, "the old instant no longer fires it")
            #expect(try await herald.deliveries().isEmpty)

            herald.clock.advance(to: Moment.instant("2026-11-01T07:00:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)
            let delivery = try #require(try await herald.deliveries().first)
            #expect(delivery["occurrenceId"].string == "nap#0")
            #expect(delivery["scheduledFor"].string == "2026-11-01T07:00:00Z")
            #expect(delivery["late"].bool == false)
        }
    }

    @Test("A floating one-shot that a zone change moves into the past is not lost: it fires once, late")
    func floatingMovedIntoPastStillFires() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(timeZone: "America/New_York")
            // 2026-11-01T03:00 in New York (EST) is 08:00Z, still ahead of now (00:00Z).
            try await herald.schedule(notification(id: "alarm", fireDate: "2026-11-01T03:00", timeZone: "floating"))
            // In Tokyo, 03:00 on Nov 1 was 2026-10-31T18:00Z: already past.
            let moved = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "Asia/Tokyo"])
            #expect(moved.status == .ok)

            _ = await herald.server.engine.fireDueBatch()
            let deliveries = try await herald.deliveries()
            #expect(deliveries.map(\.["occurrenceId"].string) == ["alarm#0"],
                    "an accepted notification must not vanish without firing")
            #expect(deliveries.first?["late"].bool == true)
            #expect(try await herald.pending().isEmpty)
        }
    }

    @Test("present delivers at once and records the delivery")
    func presentRecordsAtOnce() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let reply = try await herald.api.post("\(Fixture.devicePath)/present",
                                                  json: ["id": "hello", "alert": ["title": "Hi", "body": "Right now"]])
            #expect(reply.status == .ok || reply.status == .created)
            #expect(reply.json["delivery"]["occurrenceId"].string == "hello#0")
            #expect(reply.json["delivery"]["channel"].string == "inbox")
            #expect(reply.json["delivery"]["outcome"].string == "held")
            #expect(reply.json["delivery"]["firedAt"].string == "2026-11-01T00:00:00Z")

            let deliveries = try await herald.deliveries()
            #expect(deliveries.count == 1)
            #expect(deliveries.first?["occurrenceId"].string == "hello#0")
            #expect(deliveries.first?["late"].bool == false)
            #expect(deliveries.first?["missed"].int == 0)
            #expect(try await herald.pending().isEmpty, "present stores no notification")
        }
    }

    @Test("present refuses a body without an alert, missingAlert (422), and records nothing")
    func presentNeedsAlert() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.expectRefusal(.post, "\(Fixture.devicePath)/present", json: ["id": "hello"],
                                           status: .unprocessableContent, reason: "missingAlert")
        }
    }

    @Test("deliveries are newest first, and limit caps how many come back")
    func deliveriesLimitNewestFirst() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for id in ["p1", "p2", "p3"] {
                _ = try await herald.api.post("\(Fixture.devicePath)/present", json: ["id": id, "alert": ["body": id]])
            }
            #expect(try await herald.deliveries().map(\.["occurrenceId"].string) == ["p3#0", "p2#0", "p1#0"])
            #expect(try await herald.deliveries(limit: 2).map(\.["occurrenceId"].string) == ["p3#0", "p2#0"])
            #expect(try await herald.deliveries(limit: 1).map(\.["occurrenceId"].string) == ["p3#0"])
            for bad in ["0", "1001", "many"] {
                expectError(try await herald.api.get("\(Fixture.devicePath)/deliveries?limit=\(bad)"),
                            status: .badRequest, reason: "invalidLimit")
            }
        }
    }
}

@Suite("Restart: nothing accepted is lost; past-due items fire once, late")
struct RestartTests {
    @Test("After downtime, a past-due one-shot fires once marked late, and a minute series fires once with missed occurrences, then resumes")
    func downtimeCatchUp() async throws {
        let directory = TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(directory) }

        // First run: schedule, then stop before anything is due.
        try await withHerald(dataDirectory: directory) { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "one-shot", fireDate: "2026-11-01T00:00:30Z"))
            try await herald.schedule(notification(id: "minutely", fireDate: "2026-11-01T00:01:00Z",
                                                   repeat: ["unit": "minute"]))
            try await herald.schedule(notification(id: "future", fireDate: "2026-12-01T00:00:00Z"))
        }

        // Second run on the same data directory, ten and a half minutes later.
        try await withHerald(now: Moment.instant("2026-11-01T00:10:30Z"), dataDirectory: directory) { herald in
            let pendingBeforeFiring = try await herald.pending().compactMap(\.["id"].string)
            #expect(pendingBeforeFiring == ["one-shot", "minutely", "future"], "everything acknowledged is still there")

            #expect(await herald.server.engine.fireDueBatch() == 2)
            let deliveries = try await herald.deliveries()
            #expect(deliveries.count == 2)

            let oneShot = try #require(deliveries.first { $0["notificationId"].string == "one-shot" })
            #expect(oneShot["occurrenceId"].string == "one-shot#0")
            #expect(oneShot["late"].bool == true)
            #expect(oneShot["missed"].int == 0)

            // 00:01 … 00:10 were due: it fires once, for 00:10 (index 9), standing for 9 missed ones.
            let minutely = try #require(deliveries.first { $0["notificationId"].string == "minutely" })
            #expect(minutely["occurrenceId"].string == "minutely#9")
            #expect(minutely["scheduledFor"].string == "2026-11-01T00:10:00Z")
            #expect(minutely["late"].bool == true)
            #expect(minutely["missed"].int == 9)

            let pending = try await herald.pending()
            #expect(pending.compactMap(\.["id"].string) == ["minutely", "future"])
            #expect(pending.first?["nextFireDate"].string == "2026-11-01T00:11:00Z", "it resumes at its next future occurrence")
            #expect(pending.first?["nextOccurrence"].int == 10)

            // Once: a second batch at the same instant fires nothing more.
            #expect(await herald.server.engine.fireDueBatch() == 0)
            #expect(try await herald.deliveries().count == 2)
        }
    }
}

@Suite("Health and routing")
struct HealthTests {
    @Test("/healthz answers 200 ok over a real socket, with the engine running as a service")
    func healthz() async throws {
        try await withHerald(transport: .live) { herald in
            let reply = try await herald.api.get("/healthz")
            #expect(reply.status == .ok)
            #expect(reply.json["status"].string == "ok")
            #expect(try await herald.api.get("/readyz").status == .ok)
        }
    }

    @Test("An unknown route is routeNotFound (404) with a JSON error body")
    func unknownRoute() async throws {
        try await withHerald { herald in
            expectError(try await herald.api.get("/v1/nothing-here"), status: .notFound, reason: "routeNotFound")
            expectError(try await herald.api.get("/"), status: .notFound, reason: "routeNotFound")
        }
    }

    @Test("An unknown route is routeNotFound over a real socket too")
    func unknownRouteLive() async throws {
        try await withHerald(transport: .live) { herald in
            expectError(try await herald.api.get("/v2/apps"), status: .notFound, reason: "routeNotFound")
        }
    }

    @Test("A live server fires on its own when its clock reaches a fire date")
    func liveEngineFires() async throws {
        try await withHerald(transport: .live) { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "tick", fireDate: "2026-11-01T00:01:00Z"))
            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:00Z"))
            // The engine's own timer fires it; wait for it, bounded.
            let deliveries = try await eventually(timeout: .seconds(2), interval: .milliseconds(10)) { () -> [JSONValue]? in
                let deliveries = try await herald.deliveries()
                return deliveries.isEmpty ? nil : deliveries
            } ?? []
            #expect(deliveries.map(\.["occurrenceId"].string) == ["tick#0"])
            #expect(deliveries.first?["late"].bool == false)
        }
    }
}
