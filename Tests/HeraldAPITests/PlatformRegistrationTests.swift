import Foundation
import HeraldCore
import Hummingbird
import Testing

// "An installation has one platform: ios (APNs), android (FCM HTTP v1) or web (Web Push)."
// `PUT /v1/apps/{app}/devices/{device}` takes the address that fits the platform: `token` (and
// `voipToken`) for ios, `fcmToken` for android, `webPush` (the browser's PushSubscription.toJSON())
// for web, on one of the app's allowed push services.

/// Addresses the registration tests use.
enum PlatformFixture {
    static let android = "pixel-1"
    static let browser = "browser-1"
    static let androidPath = "/v1/apps/\(Fixture.app)/devices/\(android)"
    static let browserPath = "/v1/apps/\(Fixture.app)/devices/\(browser)"

    /// An FCM registration token of the usual shape.
    static let fcmToken = "cAbc1-DEf_2:APA91bHPRgkF3JUikC4ENAHEeMrd41Zxv3hVZjC9KtT8OvPVGJ-hQMRKRrZuJAEcl7B338qju59zJMjw2DELjzEvxwYv7hH5"
    static let apnsToken = String(repeating: "ab", count: 32)

    /// RFC 8291 Appendix A's user agent keys: a point on the P-256 curve and a 16-byte secret.
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let endpoint = "https://fcm.googleapis.com/fcm/send/abc"

    static func webPush(endpoint: String = endpoint, p256dh: String = p256dh, auth: String = auth) -> [String: Any] {
        ["endpoint": endpoint, "keys": ["p256dh": p256dh, "auth": auth]]
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// 65 bytes, uncompressed-point shaped (0x04 first), but not a point on the curve.
    static let offCurve = base64URL([0x04] + [UInt8](repeating: 0x01, count: 64))
}

@Suite("Devices on Android and the web")
struct PlatformRegistrationTests {
    private typealias F = PlatformFixture

    private func registerApp(_ herald: Herald, json: [String: Any] = [:]) async throws {
        let reply = try await herald.api.put("/v1/apps/\(Fixture.app)", json: json)
        try #require(reply.status == .created || reply.status == .ok, "app registration failed: \(reply.text)")
    }

    @Test("An android device registers with its fcmToken: 201, and GET shows platform android, the token, and no APNs or web address")
    func androidDevice() async throws {
        try await withHerald { herald in
            try await registerApp(herald)
            let created = try await herald.api.put(F.androidPath,
                                                   json: ["timeZone": "Europe/Paris", "platform": "android", "fcmToken": F.fcmToken])
            #expect(created.status == .created, "\(created.text)")
            let read = try await herald.api.get(F.androidPath)
            #expect(read.status == .ok)
            #expect(read.json["platform"].string == "android")
            #expect(read.json["fcmToken"].string == F.fcmToken, "FCM tokens are kept as given, case included")
            #expect(read.json["webPush"].isNull && read.json["token"].isNull && read.json["voipToken"].isNull)
            #expect(read.json == created.json)
            #expect(read.json["state"].string == "notRunning")
        }
    }

    @Test("A web device registers with its push subscription on a public push service: 201, and GET shows it as given")
    func webDevice() async throws {
        try await withHerald { herald in
            try await registerApp(herald)
            let created = try await herald.api.put(F.browserPath, json: ["timeZone": "Europe/Paris", "platform": "web",
                                                                         "webPush": F.webPush()])
            #expect(created.status == .created, "\(created.text)")
            let read = try await herald.api.get(F.browserPath)
            #expect(read.json["platform"].string == "web")
            #expect(read.json["webPush"]["endpoint"].string == F.endpoint)
            #expect(read.json["webPush"]["keys"]["p256dh"].string == F.p256dh)
            #expect(read.json["webPush"]["keys"]["auth"].string == F.auth)
            #expect(read.json["fcmToken"].isNull && read.json["token"].isNull)
        }
    }

    @Test("A web device may register before its app has any webPush settings: the public push services are allowed by default")
    func webDeviceWithoutAppSettings() async throws {
        try await withHerald { herald in
            try await registerApp(herald)
            #expect(try await herald.api.get("/v1/apps/\(Fixture.app)").json["webPush"].isNull)
            for (index, host) in ["updates.push.services.mozilla.com", "web.push.apple.com", "wns2-par02p.notify.windows.com"].enumerated() {
                let reply = try await herald.api.put("/v1/apps/\(Fixture.app)/devices/browser-\(index + 2)",
                                                     json: ["timeZone": "UTC", "platform": "web",
                                                            "webPush": F.webPush(endpoint: "https://\(host)/push/abc")])
                #expect(reply.status == .created, "\(host): \(reply.text)")
            }
        }
    }

    @Test("Without a platform a device is ios, as before")
    func defaultPlatformIsIOS() async throws {
        try await withHerald { herald in
            try await registerApp(herald)
            let created = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "Europe/Paris", "token": F.apnsToken])
            #expect(created.status == .created)
            #expect(created.json["platform"].string == "ios")
            #expect(try await herald.api.get(Fixture.devicePath).json["platform"].string == "ios")
            #expect(created.json["fcmToken"].isNull && created.json["webPush"].isNull, "the full shape, nulls included")
        }
    }

    @Test("A platform other than ios, android or web is invalidPlatform (422), and stores nothing")
    func unknownPlatform() async throws {
        try await withHerald { herald in
            try await registerApp(herald)
            for platform in ["blackberry", "iOS", "Android", ""] {
                try await herald.expectRefusal(.put, Fixture.devicePath, json: ["timeZone": "Europe/Paris", "platform": platform],
                                               status: .unprocessableContent, reason: "invalidPlatform")
            }
            #expect(try await herald.api.get(Fixture.devicePath).status == .notFound)
        }
    }

    /// Bodies whose address belongs to another platform.
    nonisolated(unsafe) static let misfits: [(label: String, body: [String: Any])] = [
        ("an APNs token on android", ["platform": "android", "token": PlatformFixture.apnsToken]),
        ("an APNs token beside the fcmToken on android", ["platform": "android", "fcmToken": PlatformFixture.fcmToken,
                                                          "token": PlatformFixture.apnsToken]),
        ("an fcmToken on ios (the default)", ["fcmToken": PlatformFixture.fcmToken]),
        ("an fcmToken on ios (named)", ["platform": "ios", "fcmToken": PlatformFixture.fcmToken]),
        ("a webPush subscription on android", ["platform": "android", "webPush": PlatformFixture.webPush()]),
        ("a webPush subscription on ios", ["webPush": PlatformFixture.webPush()]),
        ("a voipToken on web", ["platform": "web", "webPush": PlatformFixture.webPush(), "voipToken": PlatformFixture.apnsToken]),
        ("an fcmToken on web", ["platform": "web", "fcmToken": PlatformFixture.fcmToken]),
    ]

    @Test("An address for another platform is addressNotForPlatform (422): nothing stored, an old registration kept",
          arguments: 0..<8)
    func addressNotForPlatform(index: Int) async throws {
        let (label, fields) = Self.misfits[index]
        let body = API.text(fields.merging(["timeZone": "Europe/Paris"]) { $1 })
        try await withHerald { herald in
            try await registerApp(herald)
            let reply = try await herald.expectRefusal(.put, Fixture.devicePath, body: body,
                                                       status: .unprocessableContent, reason: "addressNotForPlatform")
            #expect(reply.json["error"]["message"].string?.isEmpty == false, "\(label)")
            #expect(try await herald.api.get(Fixture.devicePath).status == .notFound, "\(label)")
            // A registered device keeps its registration when the new one is refused.
            let first = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "Asia/Tokyo", "token": F.apnsToken])
            try #require(first.status == .created)
            try await herald.expectRefusal(.put, Fixture.devicePath, body: body,
                                           status: .unprocessableContent, reason: "addressNotForPlatform")
            let kept = try await herald.api.get(Fixture.devicePath)
            #expect(kept.json["token"].string == F.apnsToken && kept.json["platform"].string == "ios", "\(label)")
        }
    }

    /// Subscriptions refused, with the reason.
    nonisolated(unsafe) static let badSubscriptions: [(label: String, webPush: [String: Any], reason: String)] = [
        ("an http endpoint", PlatformFixture.webPush(endpoint: "http://fcm.googleapis.com/fcm/send/abc"), "invalidWebPushEndpoint"),
        ("an endpoint that is not a URL", PlatformFixture.webPush(endpoint: "fcm.googleapis.com/fcm/send/abc"), "invalidWebPushEndpoint"),
        ("an internal host", PlatformFixture.webPush(endpoint: "https://internal.example/x"), "webPushHostNotAllowed"),
        ("loopback", PlatformFixture.webPush(endpoint: "https://127.0.0.1:8443/x"), "webPushHostNotAllowed"),
        ("a look-alike host", PlatformFixture.webPush(endpoint: "https://push.apple.com.evil.com/x"), "webPushHostNotAllowed"),
        ("a short p256dh", PlatformFixture.webPush(p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6"), "invalidWebPushKeys"),
        ("a 65-byte 0x04 point off the curve", PlatformFixture.webPush(p256dh: PlatformFixture.offCurve), "invalidWebPushKeys"),
        ("a 15-byte auth", PlatformFixture.webPush(auth: PlatformFixture.base64URL([UInt8](repeating: 9, count: 15))),
         "invalidWebPushKeys"),
        ("standard base64 keys", PlatformFixture.webPush(p256dh: PlatformFixture.p256dh.replacingOccurrences(of: "_", with: "/")
            .replacingOccurrences(of: "-", with: "+")), "invalidWebPushKeys"),
    ]

    @Test("A subscription that is not https, not on an allowed push service, or whose keys are not a P-256 point and a 16-byte secret is refused (422), storing nothing",
          arguments: 0..<9)
    func badSubscription(index: Int) async throws {
        let (label, webPush, reason) = Self.badSubscriptions[index]
        let body = API.text(["timeZone": "Europe/Paris", "platform": "web", "webPush": webPush])
        try await withHerald { herald in
            try await registerApp(herald)
            try await herald.expectRefusal(.put, F.browserPath, body: body, status: .unprocessableContent, reason: reason,
                                           device: F.browser)
            #expect(try await herald.api.get(F.browserPath).status == .notFound, "\(label)")
            let first = try await herald.api.put(F.browserPath, json: ["timeZone": "Europe/Paris", "platform": "web", "webPush": F.webPush()])
            try #require(first.status == .created, "\(first.text)")
            try await herald.expectRefusal(.put, F.browserPath, body: body, status: .unprocessableContent, reason: reason,
                                           device: F.browser)
            #expect(try await herald.api.get(F.browserPath).json["webPush"]["endpoint"].string == F.endpoint, "\(label)")
        }
    }

    @Test("An fcmToken that is empty, has spaces or other characters, or is over 4,096 bytes is invalidFcmToken (422)")
    func invalidFCMToken() async throws {
        try await withHerald { herald in
            try await registerApp(herald)
            for token in ["", "has space:APA91b", "abc/def", String(repeating: "A", count: 4097)] {
                try await herald.expectRefusal(.put, F.androidPath, json: ["timeZone": "UTC", "platform": "android", "fcmToken": token],
                                               status: .unprocessableContent, reason: "invalidFcmToken", device: F.android)
            }
            let longest = try await herald.api.put(F.androidPath, json: ["timeZone": "UTC", "platform": "android",
                                                                         "fcmToken": String(repeating: "A", count: 4096)])
            #expect(longest.status == .created, "4,096 bytes is allowed: \(longest.text)")
        }
    }

    @Test("An android or web device may register without an address yet, like an ios one without a token")
    func noAddressYet() async throws {
        try await withHerald { herald in
            try await registerApp(herald)
            let android = try await herald.api.put(F.androidPath, json: ["timeZone": "UTC", "platform": "android"])
            #expect(android.status == .created && android.json["fcmToken"].isNull, "\(android.text)")
            let web = try await herald.api.put(F.browserPath, json: ["timeZone": "UTC", "platform": "web"])
            #expect(web.status == .created && web.json["webPush"].isNull, "\(web.text)")
        }
    }

    @Test("A device that changes platform from ios to android keeps its pending notifications; its APNs token goes")
    func platformChangeKeepsNotifications() async throws {
        try await withHerald { herald in
            try await herald.registerDevice()
            let ios = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "Europe/Paris", "token": F.apnsToken])
            try #require(ios.status == .ok)
            try await herald.schedule(notification(id: "standup", fireDate: "2026-12-01T07:30", timeZone: "floating"))
            let before = try await herald.pending()
            try #require(before.count == 1)

            let moved = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "Europe/Paris", "platform": "android",
                                                                            "fcmToken": F.fcmToken])
            #expect(moved.status == .ok, "\(moved.text)")
            #expect(moved.json["platform"].string == "android" && moved.json["token"].isNull)
            #expect(moved.json["fcmToken"].string == F.fcmToken)
            let after = try await herald.pending()
            #expect(after.map(\.["id"].string) == ["standup"])
            #expect(after == before, "the notification is unchanged: \(after)")

            // And on to the web, still keeping it.
            let web = try await herald.api.put(Fixture.devicePath, json: ["timeZone": "Europe/Paris", "platform": "web",
                                                                          "webPush": F.webPush()])
            #expect(web.status == .ok && web.json["fcmToken"].isNull, "\(web.text)")
            #expect(try await herald.pending() == before)
        }
    }

    @Test("An app whose webPush.allowedHosts (set by an admin) names 127.0.0.1 accepts an endpoint there, and only its listed hosts")
    func ownAllowedHosts() async throws {
        try await withHerald { herald in
            try await registerApp(herald, json: ["webPush": ["subject": "mailto:ops@example.com", "allowedHosts": ["127.0.0.1"]]])
            let local = try await herald.api.put(F.browserPath, json: ["timeZone": "UTC", "platform": "web",
                                                                       "webPush": F.webPush(endpoint: "https://127.0.0.1:8443/push/abc")])
            #expect(local.status == .created, "\(local.text)")
            #expect(local.json["webPush"]["endpoint"].string == "https://127.0.0.1:8443/push/abc")
            // The list replaces the public services for this app.
            try await herald.expectRefusal(.put, F.browserPath, json: ["timeZone": "UTC", "platform": "web", "webPush": F.webPush()],
                                           status: .unprocessableContent, reason: "webPushHostNotAllowed", device: F.browser)
            // Another app keeps the public services, and refuses loopback.
            let other = try await herald.api.put("/v1/apps/com.example.other", json: [:])
            try #require(other.status == .created)
            let refused = try await herald.api.put("/v1/apps/com.example.other/devices/\(F.browser)",
                                                   json: ["timeZone": "UTC", "platform": "web",
                                                          "webPush": F.webPush(endpoint: "https://127.0.0.1:8443/push/abc")])
            expectError(refused, status: .unprocessableContent, reason: "webPushHostNotAllowed")
        }
    }
}
