import Foundation
import HeraldCore
import Hummingbird
import Testing

@Suite("Notifications: replace, list, preview, cancel")
struct NotificationLifecycleTests {
    @Test("Scheduling an id that is pending replaces it, as iOS does: still one pending, with the new content")
    func sameIDReplaces() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let first = try await herald.schedule(notification(id: "wake-up", fireDate: "2026-12-01T07:30",
                                                               timeZone: "Europe/Paris", body: "Time to get up"))
            #expect(first.json["replaced"].bool == false)
            let second = try await herald.api.post(Fixture.notifications, json: notification(
                id: "wake-up", fireDate: "2026-12-02T08:00", timeZone: "Europe/Paris", repeat: ["unit": "week"],
                body: "Sleep in"))
            #expect(second.status == .created || second.status == .ok)
            #expect(second.json["replaced"].bool == true)
            #expect(second.json["stored"].bool == true)

            let pending = try await herald.pending()
            #expect(pending.count == 1)
            #expect(pending.first?["id"].string == "wake-up")
            #expect(pending.first?["alert"]["body"].string == "Sleep in")
            #expect(pending.first?["nextFireDate"].string == "2026-12-02T07:00:00Z")
            #expect(pending.first?["repeat"]["unit"].string == "week")
        }
    }

    @Test("The list is sorted by next fire date, whatever the order of scheduling")
    func listSortedByNextFireDate() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(timeZone: "Europe/Paris")
            try await herald.schedule(notification(id: "c", fireDate: "2026-12-03T09:00:00Z"))
            try await herald.schedule(notification(id: "a", fireDate: "2026-12-01T07:30", timeZone: "America/New_York"))
            try await herald.schedule(notification(id: "d", fireDate: "2027-01-01T00:00", timeZone: "floating"))
            try await herald.schedule(notification(id: "b", fireDate: "2026-12-01T07:30", timeZone: "Europe/Paris"))
            let pending = try await herald.pending()
            #expect(pending.map(\.["id"].string) == ["b", "a", "c", "d"])
            #expect(pending.map(\.["nextFireDate"].string) == [
                "2026-12-01T06:30:00Z", "2026-12-01T12:30:00Z", "2026-12-03T09:00:00Z", "2026-12-31T23:00:00Z",
            ])
        }
    }

    @Test("GET with occurrences=3 previews the next 3 UTC instants, across a DST change (Paris, 2027-03-28)")
    func previewAcrossDST() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "wake-up", fireDate: "2027-03-27T07:30", timeZone: "Europe/Paris",
                                                   repeat: ["unit": "day"]))
            let reply = try await herald.api.get("\(Fixture.notifications)/wake-up?occurrences=3")
            #expect(reply.status == .ok)
            #expect(reply.json["occurrences"].array?.compactMap(\.string) == [
                "2027-03-27T06:30:00Z",  // 07:30 CET
                "2027-03-28T05:30:00Z",  // 07:30 CEST, after the clocks went forward
                "2027-03-29T05:30:00Z",
            ])
            #expect(reply.json["nextFireDate"].string == "2027-03-27T06:30:00Z")

            // Without the parameter there is no preview.
            let plain = try await herald.api.get("\(Fixture.notifications)/wake-up")
            #expect(plain.status == .ok)
            #expect(plain.json["occurrences"].isNull)
        }
    }

    @Test("A preview of a series with an end stops at the end")
    func previewStopsAtEnd() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "twice", fireDate: "2026-12-01T07:30", timeZone: "Europe/Paris",
                                                   repeat: ["unit": "month", "count": 2]))
            let reply = try await herald.api.get("\(Fixture.notifications)/twice?occurrences=5")
            #expect(reply.json["occurrences"].array?.compactMap(\.string) == ["2026-12-01T06:30:00Z", "2027-01-01T06:30:00Z"])
            #expect(reply.json["repeat"]["count"].int == 2)
        }
    }

    @Test("occurrences above 100, below 0 or not a number is invalidOccurrences (400)")
    func invalidOccurrences() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "wake-up", fireDate: "2026-12-01T06:30:00Z", repeat: ["unit": "day"]))
            for value in ["101", "-1", "three"] {
                expectError(try await herald.api.get("\(Fixture.notifications)/wake-up?occurrences=\(value)"),
                            status: .badRequest, reason: "invalidOccurrences")
            }
            #expect(try await herald.api.get("\(Fixture.notifications)/wake-up?occurrences=100")
                .json["occurrences"].array?.count == 100)
        }
    }

    @Test("Cancelling one answers 204; afterwards it is notificationNotFound (404)")
    func cancelOne() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "keep", fireDate: "2026-12-01T06:30:00Z"))
            try await herald.schedule(notification(id: "drop", fireDate: "2026-12-02T06:30:00Z"))
            #expect(try await herald.api.delete("\(Fixture.notifications)/drop").status == .noContent)
            expectError(try await herald.api.get("\(Fixture.notifications)/drop"), status: .notFound,
                        reason: "notificationNotFound")
            try await herald.expectRefusal(.delete, "\(Fixture.notifications)/drop", body: nil,
                                           status: .notFound, reason: "notificationNotFound")
            #expect(try await herald.pending().map(\.["id"].string) == ["keep"])
        }
    }

    @Test("Cancelling all answers with how many were cancelled")
    func cancelAll() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for index in 1...3 {
                try await herald.schedule(notification(id: "n\(index)", fireDate: "2026-12-0\(index)T06:30:00Z"))
            }
            let reply = try await herald.api.delete(Fixture.notifications)
            #expect(reply.status == .ok)
            #expect(reply.json["cancelled"].int == 3)
            #expect(try await herald.pending().isEmpty)
            #expect(try await herald.api.delete(Fixture.notifications).json["cancelled"].int == 0)
        }
    }

    @Test("Notifications are per device: another device's list and cancel-all do not touch them")
    func perDevice() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.registerDevice(device: "ipad-2")
            try await herald.schedule(notification(id: "mine", fireDate: "2026-12-01T06:30:00Z"))
            let other = "/v1/apps/com.example.alarm/devices/ipad-2/notifications"
            #expect(try await herald.api.get(other).json["notifications"].array == [])
            #expect(try await herald.api.delete(other).json["cancelled"].int == 0)
            #expect(try await herald.pending().count == 1)
        }
    }
}
