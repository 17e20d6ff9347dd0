import Foundation
import HeraldCore
import Hummingbird
import Testing

// Listing, from the API's rule: every collection answers `?limit=&cursor=` with
// `{"items": [...], "nextCursor": ...}`, a page at a time in key order, and a refused listing
// changes nothing.

/// Every item of a listing, page by page, and how many pages it took.
func walkPages(_ api: API, _ path: String, limit: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws
    -> (items: [JSONValue], pages: Int) {
    var items: [JSONValue] = []
    var cursor: String?
    var pages = 0
    repeat {
        let separator = path.contains("?") ? "&" : "?"
        let query = "\(separator)limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? "")
        let reply = try await api.get(path + query)
        try #require(reply.status == .ok, "\(path): \(reply.text)", sourceLocation: sourceLocation)
        guard case .array(let page) = reply.json["items"] else {
            Issue.record("no items in \(reply.text)", sourceLocation: sourceLocation)
            return (items, pages)
        }
        #expect(page.count <= limit, sourceLocation: sourceLocation)
        items += page
        pages += 1
        cursor = reply.json["nextCursor"].string
        if cursor == nil { #expect(reply.json["nextCursor"] == .null, "nextCursor is null on the last page", sourceLocation: sourceLocation) }
    } while cursor != nil && pages < 100
    return (items, pages)
}

@Suite("Listing: every collection is paginated with one cursor style")
struct ListingTests {
    @Test("GET /v1/apps walks every app in id order, limit at a time, and nextCursor is null on the last page")
    func appsArePaged() async throws {
        try await withHerald { herald in
            let ids = (0..<5).map { "com.example.app\($0)" }
            for id in ids.shuffled() { _ = try await herald.api.put("/v1/apps/\(id)", json: [:]) }
            let walk = try await walkPages(herald.api, "/v1/apps", limit: 2)
            #expect(walk.items.map { $0["id"].string } == ids)
            #expect(walk.pages == 3)
        }
    }

    @Test("An app created between two pages after the cursor shows up; nothing shown repeats")
    func pagesStartAfterTheCursor() async throws {
        try await withHerald { herald in
            for id in ["a.one", "c.three"] { _ = try await herald.api.put("/v1/apps/\(id)", json: [:]) }
            let first = try await herald.api.get("/v1/apps?limit=1")
            #expect(first.json["items"][0]["id"].string == "a.one")
            let cursor = try #require(first.json["nextCursor"].string)
            _ = try await herald.api.put("/v1/apps/b.two", json: [:])
            _ = try await herald.api.delete("/v1/apps/a.one")
            let rest = try await herald.api.get("/v1/apps?limit=10&cursor=\(cursor)")
            guard case .array(let items) = rest.json["items"] else { Issue.record("\(rest.text)"); return }
            #expect(items.map { $0["id"].string } == ["b.two", "c.three"])
        }
    }

    @Test("GET /v1/apps/{app}/devices filters by platform and state, in id order")
    func devicesAreFiltered() async throws {
        try await withHerald { herald in
            _ = try await herald.api.put("/v1/apps/\(Fixture.app)", json: [:])
            for index in 0..<4 {
                _ = try await herald.api.put("/v1/apps/\(Fixture.app)/devices/phone-\(index)", json: ["timeZone": "Europe/Paris"])
            }
            _ = try await herald.api.put("/v1/apps/\(Fixture.app)/devices/pixel", json: [
                "timeZone": "UTC", "platform": "android", "fcmToken": "cAbc1-DEf_2:APA91bHPRgkF3JUikC4ENAHEeMrd41Zxv3hVZjC9KtT8OvPVGJ-hQMRKRrZuJAEcl7B338qju59zJ"])
            let active = try await herald.api.put("/v1/apps/\(Fixture.app)/devices/phone-2/state", json: ["state": "active"])
            #expect(active.status == .ok, "\(active.text)")
            let all = try await walkPages(herald.api, "/v1/apps/\(Fixture.app)/devices", limit: 2)
            #expect(all.items.map { $0["id"].string } == ["phone-0", "phone-1", "phone-2", "phone-3", "pixel"])
            let android = try await walkPages(herald.api, "/v1/apps/\(Fixture.app)/devices?platform=android", limit: 10)
            #expect(android.items.map { $0["id"].string } == ["pixel"])
            let awake = try await walkPages(herald.api, "/v1/apps/\(Fixture.app)/devices?state=active", limit: 10)
            #expect(awake.items.map { $0["id"].string } == ["phone-2"])
        }
    }

    @Test("A bad limit, cursor, platform or state is a 400 with its reason; an unknown app is a 404")
    func badListingQueries() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let devices = "/v1/apps/\(Fixture.app)/devices"
            for (path, reason) in [("/v1/apps?limit=0", "invalidLimit"), ("/v1/apps?limit=1001", "invalidLimit"),
                                   ("/v1/apps?limit=two", "invalidLimit"), ("/v1/apps?cursor=%25%25", "invalidCursor"),
                                   ("\(devices)?platform=symbian", "invalidPlatform"), ("\(devices)?state=asleep", "invalidState"),
                                   ("\(Fixture.devicePath)/deliveries?cursor=bm90LWEta2V5", "invalidCursor"),
                                   ("\(Fixture.notifications)?limit=-1", "invalidLimit")] {
                expectError(try await herald.api.get(path), status: .badRequest, reason: reason)
            }
            expectError(try await herald.api.get("/v1/apps/com.example.none/devices"), status: .notFound, reason: "appNotFound")
        }
    }

    @Test("Existing lists answer items and nextCursor, and still their own key: notifications by next fire date")
    func notificationsArePaged() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let ids = (0..<5).map { "n\($0)" }
            for (offset, id) in ids.enumerated().reversed() {
                try await herald.schedule(["id": id, "fireDate": "2026-12-01T06:\(10 + offset):00Z", "alert": ["body": id]])
            }
            let walk = try await walkPages(herald.api, Fixture.notifications, limit: 2)
            #expect(walk.items.map { $0["id"].string } == ids)
            let whole = try await herald.api.get(Fixture.notifications)
            #expect(whole.json["notifications"] == whole.json["items"])
            #expect(whole.json["nextCursor"] == .null)
        }
    }

    @Test("Deliveries page newest first through the cursor, and the old limit-only query still answers")
    func deliveriesArePaged() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            for index in 0..<5 {
                let reply = try await herald.api.post("\(Fixture.devicePath)/present", json: ["id": "p\(index)", "alert": ["body": "now"]])
                #expect(reply.status == .ok, "\(reply.text)")
            }
            let walk = try await walkPages(herald.api, "\(Fixture.devicePath)/deliveries", limit: 2)
            #expect(walk.items.map { $0["notificationId"].string } == ["p4", "p3", "p2", "p1", "p0"])
            #expect(walk.pages == 3)
            let legacy = try await herald.api.get("\(Fixture.devicePath)/deliveries?limit=3")
            #expect(legacy.json["deliveries"] == legacy.json["items"])
        }
    }
}

@Suite("Listing under API keys")
struct ListingAccessTests {
    @Test("An admin key lists every app; an app key lists only its own")
    func appKeysSeeTheirOwnApp() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            try await herald.registerApp(GuardApps.weather, token: guardToken(2))
            let admin = try await herald.get("/v1/apps")
            guard case .array(let all) = admin.json["items"] else { Issue.record("\(admin.text)"); return }
            #expect(all.map { $0["id"].string } == [GuardApps.alarm, GuardApps.weather])
            let own = try await herald.get("/v1/apps", key: GuardKeys.weather)
            guard case .array(let mine) = own.json["items"] else { Issue.record("\(own.text)"); return }
            #expect(mine.map { $0["id"].string } == [GuardApps.weather])
            #expect(own.json["nextCursor"] == .null)
            let devices = try await herald.get("/v1/apps/\(GuardApps.alarm)/devices", key: GuardKeys.weather)
            expectError(devices, status: .forbidden, reason: "forbidden")
        }
    }

    @Test("GET /v1/hooks is for admins: an app key is refused with 403 forbidden")
    func hooksAreAdminOnly() async throws {
        try await withOrdersHook { herald in
            let listed = try await herald.get("/v1/hooks")
            #expect(listed.status == .ok)
            #expect(listed.json["items"][0]["name"].string == HookFixture.name)
            expectError(try await herald.get("/v1/hooks", key: GuardKeys.alarm), status: .forbidden, reason: "forbidden")
        }
    }
}
