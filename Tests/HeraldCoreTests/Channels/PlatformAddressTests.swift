import Foundation
import HeraldCore
import Testing

// "An installation has one platform: ios (APNs), android (FCM HTTP v1) or web (Web Push)", and
// its address must fit it: an APNs token, an FCM registration token, or a browser's
// PushSubscription on one of the app's allowed push services.

/// The reason a throwing call refused with, or nil when it did not throw.
/// Base64url without padding, as browsers give the subscription keys.
private func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// The user agent's keys of RFC 8291 Appendix A: a real uncompressed P-256 point and secret.
enum RFC8291 {
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let keys = WebPushSubscription.Keys(p256dh: p256dh, auth: auth)
}

private func subscription(_ endpoint: String, p256dh: String = RFC8291.p256dh, auth: String = RFC8291.auth) -> WebPushSubscription {
    WebPushSubscription(endpoint: endpoint, keys: .init(p256dh: p256dh, auth: auth))
}

/// The reason `validated` refuses with under the public push services, or nil when it accepts.
private func verdict(_ subscription: WebPushSubscription, hosts: WebPushHosts = .publicPushServices) -> String? {
    refusal { _ = try subscription.validated(allowedHosts: hosts) }
}

@Suite("Web Push subscriptions")
struct WebPushSubscriptionTests {
    @Test("A browser's subscription on a public push service, with RFC 8291's keys, is accepted unchanged")
    func acceptedUnchanged() throws {
        let given = subscription("https://fcm.googleapis.com/fcm/send/abc:APA91bXyz")
        #expect(try given.validated(allowedHosts: .publicPushServices) == given)
    }

    @Test("The endpoint must be an https URL with a host and no user info: invalidWebPushEndpoint",
          arguments: ["http://fcm.googleapis.com/fcm/send/abc", "ftp://fcm.googleapis.com/x", "fcm.googleapis.com/fcm/send/abc",
                      "https:///fcm/send/abc", "https://user@fcm.googleapis.com/fcm/send/abc", "", "not a url"])
    func endpointMustBeHTTPS(endpoint: String) {
        #expect(verdict(subscription(endpoint)) == "invalidWebPushEndpoint", "\(endpoint)")
    }

    @Test("An endpoint over 2,048 bytes is invalidWebPushEndpoint")
    func endpointLength() {
        let prefix = "https://fcm.googleapis.com/fcm/send/"
        let longest = prefix + String(repeating: "a", count: 2048 - prefix.utf8.count)
        #expect(verdict(subscription(longest)) == nil)
        #expect(verdict(subscription(longest + "a")) == "invalidWebPushEndpoint")
    }

    @Test("The public push services are Chrome's, Firefox's, Safari's (any *.push.apple.com) and Windows' (any *.notify.windows.com)",
          arguments: ["fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com", "x.push.apple.com",
                      "wns2-xyz.notify.windows.com"])
    func publicServicesAllowed(host: String) {
        #expect(verdict(subscription("https://\(host)/push/abc")) == nil, "\(host)")
        #expect(WebPushHosts.publicPushServices.allows(host))
    }

    @Test("A host that is not a public push service is webPushHostNotAllowed: look-alikes, parents, loopback, the bare wildcard domain",
          arguments: ["push.apple.com.evil.com", "apple.com", "127.0.0.1", "notify.windows.com", "push.apple.com", "evilpush.apple.com",
                      "fcm.googleapis.com.evil.com", "localhost", "internal.example"])
    func otherHostsRefused(host: String) {
        #expect(verdict(subscription("https://\(host)/push/abc")) == "webPushHostNotAllowed", "\(host)")
    }

    @Test("The host is compared case-insensitively")
    func hostCase() {
        #expect(verdict(subscription("https://FCM.GoogleAPIs.com/fcm/send/abc")) == nil)
        #expect(verdict(subscription("https://X.Push.Apple.COM/abc")) == nil)
    }

    @Test("An app's own host list replaces the public services: exact names and *.domain (its subdomains, not itself)")
    func ownHostList() {
        let hosts = WebPushHosts(["127.0.0.1", "*.Push.Example.org"])
        #expect(verdict(subscription("https://127.0.0.1:8443/push/abc"), hosts: hosts) == nil)
        #expect(verdict(subscription("https://a.push.example.org/abc"), hosts: hosts) == nil, "patterns are lowercased")
        #expect(verdict(subscription("https://push.example.org/abc"), hosts: hosts) == "webPushHostNotAllowed")
        #expect(verdict(subscription("https://fcm.googleapis.com/fcm/send/abc"), hosts: hosts) == "webPushHostNotAllowed",
                "the public services are the default, not an addition")
    }

    @Test("The host is checked before the keys: a bad endpoint with bad keys names the endpoint")
    func endpointBeforeKeys() {
        #expect(verdict(subscription("https://internal.example/x", p256dh: "short", auth: "short")) == "webPushHostNotAllowed")
        #expect(verdict(subscription("http://fcm.googleapis.com/x", p256dh: "short", auth: "short")) == "invalidWebPushEndpoint")
    }

    @Test("p256dh must be base64url of a 65-byte point starting 0x04: shorter, longer or compressed is invalidWebPushKeys")
    func p256dhShape() {
        let endpoint = "https://fcm.googleapis.com/fcm/send/abc"
        let uncompressed = [UInt8(0x04)] + [UInt8](repeating: 0x01, count: 64)
        #expect(verdict(subscription(endpoint, p256dh: base64URL(uncompressed))) == nil,
                "on the curve or not is the API's check (with the crypto), not this one")
        for (label, bytes) in [("64 bytes", Array(uncompressed.prefix(64))), ("66 bytes", uncompressed + [0x01]),
                               ("0x02 prefix", [0x02] + Array(uncompressed.dropFirst())),
                               ("33-byte compressed point", [0x02] + [UInt8](repeating: 0x01, count: 32)), ("empty", [])] {
            #expect(verdict(subscription(endpoint, p256dh: base64URL(bytes))) == "invalidWebPushKeys", "\(label)")
        }
    }

    @Test("auth must be base64url of exactly 16 bytes: invalidWebPushKeys")
    func authShape() {
        let endpoint = "https://fcm.googleapis.com/fcm/send/abc"
        #expect(verdict(subscription(endpoint, auth: base64URL([UInt8](repeating: 7, count: 16)))) == nil)
        for count in [0, 15, 17, 32] {
            #expect(verdict(subscription(endpoint, auth: base64URL([UInt8](repeating: 7, count: count)))) == "invalidWebPushKeys",
                    "\(count) bytes")
        }
    }

    @Test("Standard base64 (with + and /) is refused for either key: invalidWebPushKeys; padded base64url is accepted")
    func standardBase64Refused() {
        let endpoint = "https://fcm.googleapis.com/fcm/send/abc"
        let standardP256dh = RFC8291.p256dh.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let standardAuth = RFC8291.auth.replacingOccurrences(of: "_", with: "/")
        #expect(standardP256dh != RFC8291.p256dh && standardAuth != RFC8291.auth)
        #expect(verdict(subscription(endpoint, p256dh: standardP256dh)) == "invalidWebPushKeys")
        #expect(verdict(subscription(endpoint, auth: standardAuth)) == "invalidWebPushKeys")
        #expect(verdict(subscription(endpoint, auth: RFC8291.auth + "==")) == nil)
        #expect(WebPushSubscription.decodeBase64URL(RFC8291.p256dh)?.count == 65)
        #expect(WebPushSubscription.decodeBase64URL(RFC8291.auth)?.count == 16)
        #expect(WebPushSubscription.decodeBase64URL("a b") == nil)
    }

    @Test("The origin (the VAPID audience and pool key) is https://host, with the port when it is not 443")
    func origin() {
        #expect(subscription("https://fcm.googleapis.com:443/fcm/send/abc").origin == "https://fcm.googleapis.com",
                "the default port is not part of an origin")
        #expect(subscription("https://fcm.googleapis.com/fcm/send/abc").origin == "https://fcm.googleapis.com")
        #expect(subscription("https://updates.push.services.mozilla.com/wpush/v2/gAAA?x=1").origin
            == "https://updates.push.services.mozilla.com")
        #expect(subscription("https://127.0.0.1:8443/push/abc").origin == "https://127.0.0.1:8443")
    }

    @Test("A subscription decodes from PushSubscription.toJSON() as browsers give it")
    func decodesBrowserJSON() throws {
        let json = #"{"endpoint":"https://fcm.googleapis.com/fcm/send/abc","expirationTime":null,"keys":{"p256dh":"\#(RFC8291.p256dh)","auth":"\#(RFC8291.auth)"}}"#
        let decoded = try JSONDecoder().decode(WebPushSubscription.self, from: Data(json.utf8))
        #expect(decoded == subscription("https://fcm.googleapis.com/fcm/send/abc"))
    }
}

@Suite("FCM registration tokens")
struct FCMTokenTests {
    /// The shape FCM issues: an instance id, a colon, and an `APA91b…` token.
    static let typical = "cAbc1-DEf_2:APA91bHPRgkF3JUikC4ENAHEeMrd41Zxv3hVZjC9KtT8OvPVGJ-hQMRKRrZuJAEcl7B338qju59zJMjw2DELjzEvxwYv7hH5Ynpc1ODQ0aT4U4OFEeco8ohsN5PjL1iC2dNtk2BAokeMCg2ZXKqpc8FXKmhX94kIxQ"

    @Test("Typical FCM tokens are accepted as they are", arguments: [typical, "a", "abc.def-ghi_jkl:mno", String(repeating: "A", count: 4096)])
    func accepted(token: String) throws {
        #expect(try DeviceRules.fcmToken(token) == token)
    }

    @Test("An empty token, one with spaces or other characters, or one over 4,096 bytes is invalidFcmToken",
          arguments: ["", " ", "abc def", "abc\n", "abc/def", "abc+def", "abc=", "é", String(repeating: "A", count: 4097)])
    func refused(token: String) {
        #expect(refusal { _ = try DeviceRules.fcmToken(token) } == "invalidFcmToken", "\(token.prefix(20))")
    }
}

@Suite("A device's push address follows its platform")
struct PushAddressTests {
    static let apnsToken = String(repeating: "ab", count: 32)
    static let web = WebPushSubscription(endpoint: "https://fcm.googleapis.com/fcm/send/abc", keys: RFC8291.keys)

    @Test("ios is reached at its APNs token, android at its FCM token, web at its subscription's endpoint")
    func perPlatform() {
        let ios = Device(appID: "a", id: "d", timeZone: "UTC", token: Self.apnsToken)
        let android = Device(appID: "a", id: "d", timeZone: "UTC", platform: .android, fcmToken: FCMTokenTests.typical)
        let web = Device(appID: "a", id: "d", timeZone: "UTC", platform: .web, webPush: Self.web)
        #expect(ios.platform == .ios, "ios is the default platform")
        #expect(ios.pushAddress == Self.apnsToken)
        #expect(android.pushAddress == FCMTokenTests.typical)
        #expect(web.pushAddress == "https://fcm.googleapis.com/fcm/send/abc")
    }

    @Test("Only the platform's own address counts: another platform's address gives none")
    func onlyOwnAddress() {
        #expect(Device(appID: "a", id: "d", timeZone: "UTC", platform: .android, fcmToken: nil, webPush: Self.web).pushAddress == nil)
        #expect(Device(appID: "a", id: "d", timeZone: "UTC", token: Self.apnsToken, platform: .web).pushAddress == nil)
        #expect(Device(appID: "a", id: "d", timeZone: "UTC", platform: .ios, fcmToken: FCMTokenTests.typical).pushAddress == nil)
        #expect(Device(appID: "a", id: "d", timeZone: "UTC").pushAddress == nil, "a device without a token has no address")
    }

    @Test("Every registered address, the VoIP token included, is listed in registeredAddresses")
    func registeredAddresses() {
        let voip = String(repeating: "cd", count: 32)
        let ios = Device(appID: "a", id: "d", timeZone: "UTC", token: Self.apnsToken, voipToken: voip)
        #expect(ios.registeredAddresses == [Self.apnsToken, voip])
        let web = Device(appID: "a", id: "d", timeZone: "UTC", platform: .web, webPush: Self.web)
        #expect(web.registeredAddresses == [Self.web.endpoint])
    }

    @Test("The platforms are exactly ios, android and web")
    func platforms() {
        #expect(Platform.allCases.map(\.rawValue) == ["ios", "android", "web"])
        #expect(Platform(rawValue: "blackberry") == nil)
    }
}
