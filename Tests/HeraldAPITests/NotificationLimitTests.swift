import Foundation
import HeraldCore
import Hummingbird
import Testing

/// Fills the fixture device with 128 one-shots `n1`…`n128`, firing one hour apart from
/// 2026-12-01T01:00Z, so that `n128` fires last.
private func fillToLimit(_ herald: Herald) async throws {
    let start = Moment.instant("2026-12-01T00:00:00Z")
    for index in 1...NotificationLimit.maximumPending {
        let fireDate = RFC3339.string(from: start.addingTimeInterval(Double(index) * 3600))
        try await herald.schedule(notification(id: "n\(index)", fireDate: fireDate, body: "number \(index)"))
    }
}

@Suite("The 128 limit")
struct NotificationLimitTests {
    @Test("128 are accepted; the 129th is notificationLimitReached (409) and the stored 128 are unchanged")
    func rejectAt128() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await fillToLimit(herald)
            #expect(try await herald.pending().count == 128)

            // Sooner than all of them or later: refused either way under the default policy.
            for fireDate in ["2026-11-15T00:00:00Z", "2027-06-01T00:00:00Z"] {
                let reply = try await herald.expectRefusal(.post, Fixture.notifications,
                                                           json: notification(id: "extra", fireDate: fireDate),
                                                           status: .conflict, reason: "notificationLimitReached")
                #expect(reply.json["error"]["message"].string?.contains("128") == true)
            }
            let ids = try await herald.pending().compactMap(\.["id"].string)
            #expect(ids == (1...128).map { "n\($0)" })
        }
    }

    @Test("At 128, replacing an id that is already pending is allowed")
    func replaceAt128() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await fillToLimit(herald)
            let reply = try await herald.api.post(Fixture.notifications, json: notification(
                id: "n64", fireDate: "2027-06-01T00:00:00Z", body: "moved"))
            #expect(reply.status == .created || reply.status == .ok, "body: \(reply.text)")
            #expect(reply.json["replaced"].bool == true)
            #expect(reply.json["evicted"].array == [])
            let pending = try await herald.pending()
            #expect(pending.count == 128)
            #expect(pending.last?["id"].string == "n64")
            #expect(pending.last?["alert"]["body"].string == "moved")
        }
    }

    @Test("A repeating notification counts once toward the 128")
    func repeatingCountsOnce() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.schedule(notification(id: "every-minute", fireDate: "2026-11-01T00:01:00Z",
                                                   repeat: ["unit": "minute"]))
            let start = Moment.instant("2026-12-01T00:00:00Z")
            for index in 1...127 {
                try await herald.schedule(notification(id: "n\(index)",
                                                       fireDate: RFC3339.string(from: start.addingTimeInterval(Double(index) * 60))))
            }
            try await herald.expectRefusal(.post, Fixture.notifications,
                                           json: notification(id: "extra", fireDate: "2027-01-01T00:00:00Z"),
                                           status: .conflict, reason: "notificationLimitReached")
        }
    }

    @Test("keepSoonest keeps the 128 soonest and lists the evicted id in the response")
    func keepSoonestEvictsLatest() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(overflow: "keepSoonest")
            try await fillToLimit(herald)
            let reply = try await herald.api.post(Fixture.notifications, json: notification(
                id: "urgent", fireDate: "2026-11-15T00:00:00Z"))
            #expect(reply.status == .created)
            #expect(reply.json["stored"].bool == true)
            #expect(reply.json["id"].string == "urgent")
            #expect(reply.json["evicted"].array?.compactMap(\.string) == ["n128"])

            let ids = try await herald.pending().compactMap(\.["id"].string)
            #expect(ids.count == 128)
            #expect(ids.first == "urgent")
            #expect(!ids.contains("n128"))
            expectError(try await herald.api.get("\(Fixture.notifications)/n128"), status: .notFound,
                        reason: "notificationNotFound")
        }
    }

    @Test("keepSoonest: a new one that fires after all 128 is not stored, and its own id is the one evicted")
    func keepSoonestEvictsNewcomer() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(overflow: "keepSoonest")
            try await fillToLimit(herald)
            let before = try await herald.storedState()
            let reply = try await herald.api.post(Fixture.notifications, json: notification(
                id: "someday", fireDate: "2027-06-01T00:00:00Z"))
            #expect(reply.status == .ok, "nothing was created; body: \(reply.text)")
            #expect(reply.json["stored"].bool == false)
            #expect(reply.json["evicted"].array?.compactMap(\.string) == ["someday"])
            #expect(try await herald.storedState() == before, "the 128 stored ones are unchanged")
            expectError(try await herald.api.get("\(Fixture.notifications)/someday"), status: .notFound,
                        reason: "notificationNotFound")
        }
    }

    @Test("The limit applies per device: a second device of the same app has its own 128")
    func limitPerDevice() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            try await herald.registerDevice(device: "ipad-2")
            try await fillToLimit(herald)
            let reply = try await herald.api.post("/v1/apps/com.example.alarm/devices/ipad-2/notifications",
                                                  json: notification(id: "n1", fireDate: "2026-12-01T06:30:00Z"))
            #expect(reply.status == .created)
        }
    }

    @Test("Concurrent requests cannot push a device past 128: of 140 at once, exactly 128 are stored")
    func concurrentSchedulingRespectsLimit() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let start = Moment.instant("2026-12-01T00:00:00Z")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 1...140 {
                    let fields = notification(id: "c\(index)",
                                              fireDate: RFC3339.string(from: start.addingTimeInterval(Double(index) * 60)))
                    let body = API.encode(fields)
                    group.addTask { try await herald.api.send(.post, Fixture.notifications, body: body).status }
                }
                var statuses: [HTTPResponse.Status] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.filter { $0 == .created }.count == 128)
            #expect(statuses.filter { $0 == .conflict }.count == 12)
            #expect(try await herald.pending().count == 128)
        }
    }
}
