import Foundation
import HeraldCore
import Hummingbird
import Testing

@Suite("Apps")
struct AppTests {
    @Test("PUT creates an app with 201, and a second PUT updates it with 200")
    func putCreatesThenUpdates() async throws {
        try await withHerald { herald in
            let created = try await herald.api.put("/v1/apps/com.example.alarm", json: [:])
            #expect(created.status == .created)
            #expect(created.json["id"].string == "com.example.alarm")
            #expect(created.json["overflow"].string == "reject", "reject is the default overflow policy")

            let updated = try await herald.api.put("/v1/apps/com.example.alarm", json: ["overflow": "keepSoonest"])
            #expect(updated.status == .ok)
            #expect(updated.json["overflow"].string == "keepSoonest")

            let read = try await herald.api.get("/v1/apps/com.example.alarm")
            #expect(read.status == .ok)
            #expect(read.json["id"].string == "com.example.alarm")
            #expect(read.json["overflow"].string == "keepSoonest")
        }
    }

    @Test("DELETE removes an app with 204; afterwards it is appNotFound (404)")
    func deleteThenNotFound() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let deleted = try await herald.api.delete("/v1/apps/com.example.alarm")
            #expect(deleted.status == .noContent)
            expectError(try await herald.api.get("/v1/apps/com.example.alarm"), status: .notFound, reason: "appNotFound")
            expectError(try await herald.api.delete("/v1/apps/com.example.alarm"), status: .notFound, reason: "appNotFound")
            // The app's devices went with it.
            expectError(try await herald.api.get(Fixture.devicePath), status: .notFound, reason: "appNotFound")
        }
    }

    @Test("An unknown overflow policy is invalidOverflow (422) and stores nothing")
    func invalidOverflow() async throws {
        try await withHerald { herald in
            try await herald.expectRefusal(.put, "/v1/apps/com.example.alarm", json: ["overflow": "dropOldest"],
                                           status: .unprocessableContent, reason: "invalidOverflow")
            // Refusing an update leaves the existing policy alone.
            try await herald.registerDevice(overflow: "keepSoonest")
            try await herald.expectRefusal(.put, "/v1/apps/com.example.alarm", json: ["overflow": "dropOldest"],
                                           status: .unprocessableContent, reason: "invalidOverflow")
            #expect(try await herald.api.get("/v1/apps/com.example.alarm").json["overflow"].string == "keepSoonest")
        }
    }

    @Test("An app id with characters outside A–Z a–z 0–9 . - _ is invalidId (422)")
    func invalidAppID() async throws {
        try await withHerald { herald in
            for id in ["com.example!alarm", "com.example*alarm", "com.example~alarm"] {
                try await herald.expectRefusal(.put, "/v1/apps/\(id)", json: [:],
                                               status: .unprocessableContent, reason: "invalidId", app: id)
            }
            let tooLong = String(repeating: "a", count: Identifier.maximumLength + 1)
            try await herald.expectRefusal(.put, "/v1/apps/\(tooLong)", json: [:],
                                           status: .unprocessableContent, reason: "invalidId", app: tooLong)
        }
    }
}

@Suite("Devices")
struct DeviceTests {
    @Test("A new device starts in the notRunning state, with its zone, token and locale")
    func newDeviceIsNotRunning() async throws {
        try await withHerald { herald in
            _ = try await herald.api.put("/v1/apps/com.example.alarm", json: [:])
            let token = String(repeating: "ab", count: 32)
            let created = try await herald.api.put(Fixture.devicePath,
                                                   json: ["timeZone": "Europe/Paris", "token": token.uppercased(),
                                                          "locale": "fr_FR"])
            #expect(created.status == .created)
            #expect(created.json["state"].string == "notRunning")
            #expect(created.json["timeZone"].string == "Europe/Paris")
            #expect(created.json["token"].string == token, "tokens are kept in lowercase hex")
            #expect(created.json["locale"].string == "fr_FR")
            #expect(created.json["voipToken"].isNull)

            let read = try await herald.api.get(Fixture.devicePath)
            #expect(read.status == .ok)
            #expect(read.json["state"].string == "notRunning")
            #expect(read.json["app"].string == "com.example.alarm")
            #expect(read.json["id"].string == "iphone-1")

            let updated = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "Asia/Tokyo"])
            #expect(updated.status == .ok)
            #expect(updated.json["timeZone"].string == "Asia/Tokyo")
        }
    }

    @Test("A device needs a timeZone: missingField (422)")
    func timeZoneRequired() async throws {
        try await withHerald { herald in
            _ = try await herald.api.put("/v1/apps/com.example.alarm", json: [:])
            try await herald.expectRefusal(.put, Fixture.devicePath, json: ["locale": "fr_FR"],
                                           status: .unprocessableContent, reason: "missingField")
        }
    }

    @Test("A device time zone that is not an IANA zone is invalidTimeZone (422)")
    func unknownTimeZone() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for zone in ["Mars/Olympus_Mons", "CEST", "GMT+2", ""] {
                try await herald.expectRefusal(.put, Fixture.devicePath, json: ["timeZone": zone],
                                               status: .unprocessableContent, reason: "invalidTimeZone")
            }
            #expect(try await herald.api.get(Fixture.devicePath).json["timeZone"].string == "Europe/Paris")
        }
    }

    @Test("A device token that is not an even count of hex digits is invalidToken (422)")
    func invalidToken() async throws {
        try await withHerald { herald in
            _ = try await herald.api.put("/v1/apps/com.example.alarm", json: [:])
            for token in ["not-a-token", "abc", String(repeating: "a", count: 33), String(repeating: "g", count: 64)] {
                try await herald.expectRefusal(.put, Fixture.devicePath, json: ["timeZone": "Europe/Paris", "token": token],
                                               status: .unprocessableContent, reason: "invalidToken")
            }
            try await herald.expectRefusal(.put, Fixture.devicePath,
                                           json: ["timeZone": "Europe/Paris", "voipToken": "xyz"],
                                           status: .unprocessableContent, reason: "invalidToken")
        }
    }

    @Test("A device of an app that does not exist is appNotFound (404)")
    func deviceOfUnknownApp() async throws {
        try await withHerald { herald in
            try await herald.expectRefusal(.put, "/v1/apps/com.example.ghost/devices/iphone-1",
                                           json: ["timeZone": "Europe/Paris"],
                                           status: .notFound, reason: "appNotFound", app: "com.example.ghost")
            expectError(try await herald.api.get("/v1/apps/com.example.ghost/devices/iphone-1"),
                        status: .notFound, reason: "appNotFound")
        }
    }

    @Test("An unknown device of a known app is deviceNotFound (404); DELETE removes a device (204)")
    func unknownDevice() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            expectError(try await herald.api.get("/v1/apps/com.example.alarm/devices/ipad-9"),
                        status: .notFound, reason: "deviceNotFound")
            expectError(try await herald.api.get("/v1/apps/com.example.alarm/devices/ipad-9/notifications"),
                        status: .notFound, reason: "deviceNotFound")
            #expect(try await herald.api.delete(Fixture.devicePath).status == .noContent)
            expectError(try await herald.api.get(Fixture.devicePath), status: .notFound, reason: "deviceNotFound")
        }
    }

    @Test("A device time-zone change re-times its floating notifications; fixed-zone and absolute ones stay")
    func timeZoneChangeRetimesFloating() async throws {
        try await withHerald { herald in
            try await herald.registerDevice(timeZone: "Europe/Paris")
            try await herald.schedule(notification(id: "floating", fireDate: "2026-12-01T07:30", timeZone: "floating"))
            try await herald.schedule(notification(id: "paris", fireDate: "2026-12-01T07:30", timeZone: "Europe/Paris"))
            try await herald.schedule(notification(id: "absolute", fireDate: "2026-12-01T06:30:00Z"))
            let before = try await herald.pending()
            #expect(before.map(\.["nextFireDate"].string) == Array(repeating: "2026-12-01T06:30:00Z", count: 3))

            let moved = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "America/New_York"])
            #expect(moved.status == .ok)

            func next(_ id: String) async throws -> String? {
                try await herald.api.get("\(Fixture.notifications)/\(id)").json["nextFireDate"].string
            }
            #expect(try await next("floating") == "2026-12-01T12:30:00Z", "07:30 EST is 12:30Z")
            #expect(try await next("paris") == "2026-12-01T06:30:00Z")
            #expect(try await next("absolute") == "2026-12-01T06:30:00Z")
            // The list stays sorted by the new next fire dates (ties in the order they were scheduled).
            #expect(try await herald.pending().map(\.["id"].string) == ["paris", "absolute", "floating"])
        }
    }
}
