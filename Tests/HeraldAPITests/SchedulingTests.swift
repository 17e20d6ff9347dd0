import Foundation
import HeraldCore
import Hummingbird
import Testing

@Suite("Scheduling: time zones and fire dates")
struct SchedulingTimeZoneTests {
    @Test("Scheduling answers 201 with nextFireDate as a UTC RFC 3339 instant")
    func createdWithUTCNextFireDate() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let reply = try await herald.api.post(Fixture.notifications, json: notification(
                id: "wake-up", fireDate: "2026-12-01T07:30", timeZone: "Europe/Paris", title: "Good morning"))
            #expect(reply.status == .created)
            #expect(reply.json["id"].string == "wake-up")
            #expect(reply.json["nextFireDate"].string == "2026-12-01T06:30:00Z")
            #expect(reply.json["nextOccurrence"].int == 0)
            #expect(reply.json["stored"].bool == true)
            #expect(reply.json["replaced"].bool == false)
            #expect(reply.json["evicted"].array == [])
            #expect(reply.json["alert"]["title"].string == "Good morning")
            #expect(reply.json["alert"]["body"].string == "Time to get up")
        }
    }

    @Test("A fire date with Z or an offset and no zone is an absolute instant")
    func absoluteInstant() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let zulu = try await herald.schedule(notification(id: "zulu", fireDate: "2026-12-01T06:30:00Z"))
            #expect(zulu.json["nextFireDate"].string == "2026-12-01T06:30:00Z")
            #expect(zulu.json["timeZone"].isNull)

            let offset = try await herald.schedule(notification(id: "offset", fireDate: "2026-12-01T07:30:00+01:00"))
            #expect(offset.json["nextFireDate"].string == "2026-12-01T06:30:00Z")
            #expect(offset.json["fireDate"].string == "2026-12-01T06:30:00Z", "an instant is echoed in UTC")
            #expect(offset.json["timeZone"].isNull)

            let west = try await herald.schedule(notification(id: "west", fireDate: "2026-12-01T01:30:00.250-05:00"))
            #expect(west.json["nextFireDate"].string == "2026-12-01T06:30:00.250Z")
        }
    }

    @Test("A wall-clock fire date with an IANA zone fires at that wall-clock time in that zone")
    func fixedZoneWallClock() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(timeZone: "Europe/Paris")
            let paris = try await herald.schedule(notification(id: "paris", fireDate: "2026-12-01T07:30", timeZone: "Europe/Paris"))
            #expect(paris.json["nextFireDate"].string == "2026-12-01T06:30:00Z", "07:30 CET is 06:30Z")
            #expect(paris.json["fireDate"].string == "2026-12-01T07:30:00", "a wall-clock time is echoed as given")
            #expect(paris.json["timeZone"].string == "Europe/Paris")

            // The zone given wins over the device's zone.
            let newYork = try await herald.schedule(notification(id: "ny", fireDate: "2027-07-01T07:30:00",
                                                                 timeZone: "America/New_York"))
            #expect(newYork.json["nextFireDate"].string == "2027-07-01T11:30:00Z", "07:30 EDT is 11:30Z")
        }
    }

    @Test("A floating fire date is wall-clock time in the device's current zone")
    func floating() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(timeZone: "Asia/Tokyo")
            let reply = try await herald.schedule(notification(id: "f", fireDate: "2026-12-01T07:30", timeZone: "floating"))
            #expect(reply.json["nextFireDate"].string == "2026-11-30T22:30:00Z", "07:30 JST is 22:30Z the day before")
            #expect(reply.json["timeZone"].string == "floating")
        }
    }

    @Test("A zone together with a date that carries an offset is offsetWithTimeZone (422)")
    func offsetWithTimeZone() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for (date, zone) in [("2026-12-01T07:30:00+01:00", "Europe/Paris"), ("2026-12-01T06:30:00Z", "floating")] {
                try await herald.expectRefusal(.post, Fixture.notifications,
                                               json: notification(fireDate: date, timeZone: zone),
                                               status: .unprocessableContent, reason: "offsetWithTimeZone")
            }
        }
    }

    @Test("A wall-clock date without a zone is timeZoneRequired (422)")
    func wallClockNeedsZone() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.expectRefusal(.post, Fixture.notifications, json: notification(fireDate: "2026-12-01T07:30"),
                                           status: .unprocessableContent, reason: "timeZoneRequired")
        }
    }

    @Test("A zone that is not an IANA zone is invalidTimeZone (422)")
    func unknownZone() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for zone in ["Mars/Olympus_Mons", "CET+1", "PST"] {
                try await herald.expectRefusal(.post, Fixture.notifications,
                                               json: notification(fireDate: "2026-12-01T07:30", timeZone: zone),
                                               status: .unprocessableContent, reason: "invalidTimeZone")
            }
        }
    }

    @Test("A fire date that is neither an instant nor a wall-clock time is invalidFireDate (422)")
    func malformedFireDate() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for date in ["tomorrow", "2026-12-01", "2026-02-30T07:30", "2026-12-01T24:00", "2026-12-01 07:30", ""] {
                try await herald.expectRefusal(.post, Fixture.notifications,
                                               json: notification(fireDate: date, timeZone: "Europe/Paris"),
                                               status: .unprocessableContent, reason: "invalidFireDate")
            }
        }
    }

    @Test("A one-shot whose fire date has passed is fireDateInPast (422)")
    func pastOneShot() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.expectRefusal(.post, Fixture.notifications, json: notification(fireDate: "2026-10-31T23:00:00Z"),
                                           status: .unprocessableContent, reason: "fireDateInPast")
            // Exactly now is not after now either.
            try await herald.expectRefusal(.post, Fixture.notifications, json: notification(fireDate: "2026-11-01T00:00:00Z"),
                                           status: .unprocessableContent, reason: "fireDateInPast")
            // A series that ended before now has nothing left to fire.
            try await herald.expectRefusal(.post, Fixture.notifications,
                                           json: notification(fireDate: "2026-10-01T07:30", timeZone: "Europe/Paris",
                                                              repeat: ["unit": "day", "count": 3]),
                                           status: .unprocessableContent, reason: "fireDateInPast")
        }
    }

    @Test("A wall-clock repeat.until is read on the notification's own clock: its IANA zone, or the device's zone when floating")
    func wallClockUntilUsesNotificationZone() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(timeZone: "America/New_York")
            let rule: [String: Any] = ["unit": "day", "until": "2026-12-05T07:30"]
            try await herald.schedule(notification(id: "fixed", fireDate: "2026-12-01T07:30", timeZone: "America/New_York",
                                                   repeat: rule))
            try await herald.schedule(notification(id: "floating", fireDate: "2026-12-01T07:30", timeZone: "floating",
                                                   repeat: rule))
            // Dec 1 … Dec 5 at 07:30 EST (12:30Z): the last one is exactly at `until`, so it is included.
            let expected = (1...5).map { "2026-12-0\($0)T12:30:00Z" }
            for id in ["fixed", "floating"] {
                let preview = try await herald.api.get("\(Fixture.notifications)/\(id)?occurrences=10")
                #expect(preview.json["occurrences"].array?.compactMap(\.string) == expected, "\(id)")
            }
        }
    }

    @Test("A repeating series anchored in the past starts at its first future occurrence")
    func pastAnchorResumesInFuture() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let reply = try await herald.schedule(notification(id: "daily", fireDate: "2026-10-01T07:30", timeZone: "Europe/Paris",
                                                               repeat: ["unit": "day"]))
            // Oct 1 is index 0; Nov 1 07:30 CET (06:30Z) is index 31.
            #expect(reply.json["nextFireDate"].string == "2026-11-01T06:30:00Z")
            #expect(reply.json["nextOccurrence"].int == 31)
        }
    }
}

@Suite("Scheduling: refusals of malformed requests")
struct SchedulingRefusalTests {
    @Test("A repeat with an unknown unit, every 0, or both count and until is invalidRepeat (422)",
          arguments: [
              ["unit": "fortnight"] as [String: any Sendable],
              ["unit": "second"],
              ["unit": "day", "every": 0],
              ["unit": "day", "every": -1],
              ["unit": "week", "count": 3, "until": "2027-01-01T00:00:00Z"],
              ["unit": "day", "count": 0],
              ["unit": "day", "until": "someday"],
              ["every": 2],
          ])
    func invalidRepeat(rule: [String: any Sendable]) async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.expectRefusal(.post, Fixture.notifications,
                                           json: notification(fireDate: "2026-12-01T07:30", timeZone: "Europe/Paris",
                                                              repeat: rule),
                                           status: .unprocessableContent, reason: "invalidRepeat")
        }
    }

    @Test("A notification without a fireDate is missingField (422)")
    func missingFireDate() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.expectRefusal(.post, Fixture.notifications, json: ["alert": ["body": "x"]],
                                           status: .unprocessableContent, reason: "missingField")
        }
    }

    @Test("A notification without an alert body is missingAlert (422)")
    func missingAlert() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.expectRefusal(.post, Fixture.notifications, json: ["fireDate": "2026-12-01T06:30:00Z"],
                                           status: .unprocessableContent, reason: "missingAlert")
            try await herald.expectRefusal(.post, Fixture.notifications,
                                           json: ["fireDate": "2026-12-01T06:30:00Z", "alert": ["title": "Hi"]],
                                           status: .unprocessableContent, reason: "missingAlert")
            try await herald.expectRefusal(.post, Fixture.notifications,
                                           json: ["fireDate": "2026-12-01T06:30:00Z", "alert": ["body": ""]],
                                           status: .unprocessableContent, reason: "missingAlert")
        }
    }

    @Test("A body that is not JSON is invalidJSON (400)")
    func malformedJSON() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for body in [#"{"fireDate": "2026-12-01T06:30:00Z", "alert": {"body": "x"}"#, "not json", "", "[1, 2"] {
                try await herald.expectRefusal(.post, Fixture.notifications, body: body,
                                               status: .badRequest, reason: "invalidJSON")
            }
        }
    }

    @Test("A field of the wrong type is invalidField (422)")
    func wrongFieldType() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let wrong: [[String: Any]] = [
                ["fireDate": 1_796_000_000, "alert": ["body": "x"]],
                ["fireDate": "2026-12-01T06:30:00Z", "alert": "x"],
                ["fireDate": "2026-12-01T06:30:00Z", "alert": ["body": "x"], "badge": "three"],
                ["fireDate": "2026-12-01T06:30:00Z", "alert": ["body": "x"], "repeat": "daily"],
                ["fireDate": "2026-12-01T06:30:00Z", "alert": ["body": "x"], "userInfo": [1, 2]],
            ]
            for body in wrong {
                try await herald.expectRefusal(.post, Fixture.notifications, json: body,
                                               status: .unprocessableContent, reason: "invalidField")
            }
        }
    }

    @Test("A notification id with characters outside A–Z a–z 0–9 . - _ is invalidId (422)")
    func invalidNotificationID() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.expectRefusal(.post, Fixture.notifications,
                                           json: notification(id: "wake up!", fireDate: "2026-12-01T06:30:00Z"),
                                           status: .unprocessableContent, reason: "invalidId")
        }
    }

    @Test("A body over maxBodyBytes is bodyTooLarge (413)")
    func bodyTooLarge() async throws {
        try await withHerald(options: .init(maxBodyBytes: 2048)) { herald in
            try await herald.registerDevice()
            let big = notification(fireDate: "2026-12-01T06:30:00Z", body: String(repeating: "x", count: 4096))
            try await herald.expectRefusal(.post, Fixture.notifications, json: big,
                                           status: .contentTooLarge, reason: "bodyTooLarge")
            // Just under the limit is fine.
            let small = notification(fireDate: "2026-12-01T06:30:00Z", body: String(repeating: "x", count: 1500))
            #expect(try await herald.api.post(Fixture.notifications, json: small).status == .created)
        }
    }

    @Test("A body over maxBodyBytes is bodyTooLarge (413) over a real socket too")
    func bodyTooLargeLive() async throws {
        try await withHerald(options: .init(maxBodyBytes: 2048), transport: .live) { herald in
            try await herald.registerDevice()
            let big = notification(fireDate: "2026-12-01T06:30:00Z", body: String(repeating: "x", count: 100_000))
            try await herald.expectRefusal(.post, Fixture.notifications, json: big,
                                           status: .contentTooLarge, reason: "bodyTooLarge")
            // The server still answers afterwards.
            #expect(try await herald.api.get("/healthz").status == .ok)
        }
    }

    @Test("Scheduling on an unknown app or device is appNotFound or deviceNotFound (404)")
    func unknownTarget() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.expectRefusal(.post, "/v1/apps/com.example.ghost/devices/iphone-1/notifications",
                                           json: notification(fireDate: "2026-12-01T06:30:00Z"),
                                           status: .notFound, reason: "appNotFound")
            try await herald.expectRefusal(.post, "/v1/apps/com.example.alarm/devices/ipad-9/notifications",
                                           json: notification(fireDate: "2026-12-01T06:30:00Z"),
                                           status: .notFound, reason: "deviceNotFound")
        }
    }
}
