import Foundation
import HeraldAPI
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

// The status pages and `/v1/status`: admin only, readable from a browser (Basic credentials with
// the key as password), and showing what is stored.

@Suite("Status pages and /v1/status")
struct StatusRoutesTests {
    @Test("The status pages need an admin key; a browser without one is asked for it (Basic)")
    func statusPagesNeedAnAdminKey() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            for path in ["/ui", "/ui/apps/\(GuardApps.alarm)", "/ui/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)",
                         "/ui/outbox"] {
                let anonymous = try await herald.get(path, key: nil)
                #expect(anonymous.status == .unauthorized, "\(path)")
                #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true, "\(path): the browser asks for the key")
                #expect(anonymous.json["error"]["reason"].string == "unauthorized")
                let appKey = try await herald.get(path, key: GuardKeys.alarm)
                #expect(appKey.status == .forbidden, "\(path): an app key does not see other apps' status")
                let basic = "Basic " + Data("operator:\(GuardKeys.admin)".utf8).base64EncodedString()
                let browser = try await herald.send(.get, path, key: nil, authorization: basic)
                #expect(browser.status == .ok, "\(path): \(browser.text)")
                #expect(browser.headers[.contentType]?.hasPrefix("text/html") == true)
            }
            let api = try await herald.get("/v1/status", key: nil)
            #expect(api.status == .unauthorized)
            #expect(api.headers[.wwwAuthenticate] == nil, "only the pages ask a browser for credentials")
        }
    }

    @Test("Basic credentials reach only the pages: a browser's cached key never works on the API (no cross-site requests)")
    func basicCredentialsOnlyForPages() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let basic = "Basic " + Data("operator:\(GuardKeys.admin)".utf8).base64EncodedString()
            let push = try await herald.send(.post, "/v1/push", body: API.encode(["notifications": [
                ["app": GuardApps.alarm, "tokens": [guardToken(1)], "aps": ["alert": "forged"]],
            ]]), key: nil, authorization: basic)
            #expect(push.status == .unauthorized)
            #expect(herald.inbox(guardToken(1)).isEmpty, "nothing pushed")
            let status = try await herald.send(.get, "/v1/status", key: nil, authorization: basic)
            #expect(status.status == .unauthorized)

            // The outbox page's retry button sends X-Herald-UI, which a form on another site cannot.
            let forged = try await herald.send(.post, "/ui/outbox/1/retry", key: nil, authorization: basic)
            #expect(forged.status == .forbidden)
            #expect(forged.json["error"]["reason"].string == "notFromStatusPage")
            let button = try await herald.send(.post, "/ui/outbox/1/retry", key: nil, authorization: basic,
                                               headers: ["X-Herald-UI": "1"])
            #expect(button.status == .notFound, "past the checks: no parked message 1")
            #expect(button.json["error"]["reason"].string == "messageNotFound")
        }
    }

    @Test("The device page lists its pending notification with its next occurrences; the fragment is only <main>'s content")
    func devicePageShowsPendingNotification() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let devicePath = "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)"
            let scheduled = try await herald.post(devicePath + "/notifications", json: [
                "id": "wake-up", "fireDate": "2027-01-04T07:00:00", "timeZone": "floating", "repeat": ["unit": "day"],
                "alert": ["title": "Good <morning>", "body": "Time to get up"],
            ])
            try #require(scheduled.status == .created, "\(scheduled.text)")

            let page = try await herald.get("/ui/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)")
            #expect(page.text.contains("<main id=\"content\">"))
            #expect(page.text.contains("<tr data-notification=\"wake-up\">"))
            #expect(page.text.contains("Good &lt;morning&gt;"), "content is escaped")
            // Paris is UTC+1 in January: 07:00 local, three days running.
            for day in ["04", "05", "06"] { #expect(page.text.contains("2027-01-\(day)T06:00:00Z"), "day \(day)") }

            let fragment = try await herald.get("/ui/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)?fragment=main")
            #expect(fragment.status == .ok)
            #expect(!fragment.text.contains("<html"), "only what the live script swaps in")
            #expect(fragment.text.contains("<tr data-notification=\"wake-up\">"))
            let wrong = try await herald.get("/ui?fragment=everything")
            #expect(wrong.status == .badRequest)
            #expect(wrong.json["error"]["reason"].string == "invalidFragment")

            let json = try await herald.get("/v1/status/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)")
            #expect(json.json["pending"][0]["id"].string == "wake-up")
            #expect(json.json["pending"][0]["nextOccurrences"].array?.count == 3)
            let app = try await herald.get("/v1/status/apps/\(GuardApps.alarm)")
            #expect(app.json["devices"][0]["device"].string == GuardApps.device)
            #expect(app.json["devices"][0]["pending"].int == 1)
            let overview = try await herald.get("/v1/status")
            #expect(overview.json["apps"][0]["app"].string == GuardApps.alarm)
            #expect(overview.json["pendingNotifications"].int == 1)
            #expect(overview.json["pushesPerMinute"].array?.count == 60)
        }
    }

    @Test("Status of an app or device that does not exist is a 404 with the usual reason")
    func unknownAppOrDevice() async throws {
        try await withGuardedHerald { herald in
            let app = try await herald.get("/v1/status/apps/com.example.nothing")
            #expect(app.status == .notFound)
            #expect(app.json["error"]["reason"].string == "appNotFound")
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let device = try await herald.get("/ui/apps/\(GuardApps.alarm)/devices/ghost")
            #expect(device.status == .notFound)
            #expect(device.json["error"]["reason"].string == "deviceNotFound")
        }
    }
}
