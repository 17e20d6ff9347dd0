import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
@testable import HeraldPush
import Testing

// "UNREGISTERED (404) invalidates the token." "404 and 410 drop the subscription." "Headers: TTL,
// Urgency, Topic (≤ 32 base64url characters)."

/// FCM's error body, as the HTTP v1 API gives it: the canonical status and the FcmError code.
private func fcmError(code: Int, status: String, message: String, errorCode: String?) -> HTTP2Response {
    var error: [String: Any] = ["code": code, "message": message, "status": status]
    if let errorCode {
        error["details"] = [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": errorCode]]
    }
    let body = try! JSONSerialization.data(withJSONObject: ["error": error])
    return HTTP2Response(status: code, headers: [("content-type", "application/json; charset=UTF-8")], body: [UInt8](body))
}

private let fcmToken = "cAbc1-DEf_2:APA91bHPRgkF3JUikC4ENAHEeMrd41Zxv3hVZjC9KtT8"
private let endpoint = "https://fcm.googleapis.com/fcm/send/abc"

private func fcmOutcome(_ response: HTTP2Response) -> PushOutcome {
    FCMClient.outcome(of: response, token: fcmToken, attempts: 1)
}

private func webPushOutcome(_ status: Int, headers: [HTTP2Header] = []) -> PushOutcome {
    WebPushClient.outcome(of: HTTP2Response(status: status, headers: headers), endpoint: endpoint, attempts: 1)
}

@Suite("Web Push topics")
struct WebPushTopicTests {
    private static func isBase64URL(_ text: String) -> Bool {
        text.utf8.allSatisfy { b in (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 95 }
    }

    @Test("A collapse id of at most 32 base64url characters is the topic as it is",
          arguments: ["n1", "standup-3", "a_b", String(repeating: "Z", count: 32)])
    func shortIDKept(id: String) {
        #expect(WebPushClient.topic(for: id) == id)
    }

    @Test("A longer id, or one outside the base64url alphabet, is hashed to exactly 32 base64url characters",
          arguments: [String(repeating: "Z", count: 33), "standup#3", "6f1c2b0e-8a7d-4e3f-9b21-5c4d3e2f1a0b#1000000000", "a b", "é", ""])
    func otherIDsHashed(id: String) {
        let topic = WebPushClient.topic(for: id)
        #expect(topic.utf8.count == 32, "\(topic)")
        #expect(Self.isBase64URL(topic), "\(topic)")
        #expect(topic != id)
    }

    @Test("The hash is deterministic (the first 32 characters of base64url SHA-256), so every node and every resend names the same topic")
    func deterministic() {
        #expect(WebPushClient.topic(for: "standup#1000000000") == "3_iHUoqb5MKCx1x-KxRxfeJeaNLpF8J0")
        #expect(WebPushClient.topic(for: "n1#3") == "BdKaFPN65SnWsJ8_kD38BRJAW9KB9-Oe")
        #expect(WebPushClient.topic(for: "n1#3") == WebPushClient.topic(for: "n1#3"))
        #expect(WebPushClient.topic(for: "n1#3") != WebPushClient.topic(for: "n1#4"))
    }
}

@Suite("FCM and Web Push answers as outcomes")
struct ChannelOutcomeTests {
    @Test("FCM 200 is accepted, with the message name as its id")
    func fcmAccepted() {
        let body = Array(#"{"name":"projects/herald-dev/messages/0:1700000000000000%abc"}"#.utf8)
        let outcome = fcmOutcome(HTTP2Response(status: 200, body: body))
        #expect(outcome.succeeded && outcome.result == .accepted && !outcome.invalidatesAddress)
        #expect(outcome.apnsID == "projects/herald-dev/messages/0:1700000000000000%abc")
        #expect(outcome.token == fcmToken && outcome.reason == nil)
    }

    @Test("FCM 404 UNREGISTERED: the token is dead, unregistered")
    func fcmUnregistered() {
        let outcome = fcmOutcome(fcmError(code: 404, status: "NOT_FOUND", message: "Requested entity was not found.",
                                          errorCode: "UNREGISTERED"))
        #expect(outcome.status == 404 && outcome.reason == "UNREGISTERED")
        #expect(outcome.detail == "Requested entity was not found.")
        #expect(outcome.invalidatesAddress)
        #expect(outcome.result == .unregistered)
    }

    @Test("FCM 400 INVALID_ARGUMENT about the registration token: the token is dead, unregistered")
    func fcmInvalidToken() {
        let outcome = fcmOutcome(fcmError(code: 400, status: "INVALID_ARGUMENT",
                                          message: "The registration token is not a valid FCM registration token",
                                          errorCode: "INVALID_ARGUMENT"))
        #expect(outcome.reason == "INVALID_ARGUMENT")
        #expect(outcome.invalidatesAddress)
        #expect(outcome.result == .unregistered)
    }

    @Test("FCM 400 INVALID_ARGUMENT about the message: rejected, and the token is kept")
    func fcmInvalidMessage() {
        let outcome = fcmOutcome(fcmError(code: 400, status: "INVALID_ARGUMENT",
                                          message: "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), Field 'ttl', Illegal duration format",
                                          errorCode: "INVALID_ARGUMENT"))
        #expect(outcome.reason == "INVALID_ARGUMENT")
        #expect(!outcome.invalidatesAddress)
        #expect(outcome.result == .rejected)
        // Without FCM's words, an INVALID_ARGUMENT cannot be said to be about the token.
        #expect(!PushOutcome(token: fcmToken, status: 400, reason: "INVALID_ARGUMENT").invalidatesAddress)
    }

    @Test("FCM 403 SENDER_ID_MISMATCH is a settings error: rejected, the token kept")
    func fcmSenderMismatch() {
        let outcome = fcmOutcome(fcmError(code: 403, status: "PERMISSION_DENIED", message: "SenderId mismatch",
                                          errorCode: "SENDER_ID_MISMATCH"))
        #expect(outcome.reason == "SENDER_ID_MISMATCH" && !outcome.invalidatesAddress && outcome.result == .rejected)
    }

    @Test("Without an FcmError code the canonical status is the reason; without a JSON body, HTTP<status>")
    func fcmReasonFallbacks() {
        let noDetails = fcmOutcome(fcmError(code: 503, status: "UNAVAILABLE", message: "The service is currently unavailable.", errorCode: nil))
        #expect(noDetails.reason == "UNAVAILABLE" && noDetails.result == .failed && !noDetails.invalidatesAddress)
        let notJSON = fcmOutcome(HTTP2Response(status: 502, body: Array("<html>bad gateway</html>".utf8)))
        #expect(notJSON.reason == "HTTP502" && notJSON.result == .failed)
    }

    @Test("Web Push 201 is accepted, with the message's Location as its id")
    func webPushAccepted() {
        let outcome = webPushOutcome(201, headers: [("location", "https://fcm.googleapis.com/fcm/send/abc/m1")])
        #expect(outcome.succeeded && outcome.result == .accepted && !outcome.invalidatesAddress)
        #expect(outcome.apnsID == "https://fcm.googleapis.com/fcm/send/abc/m1")
        #expect(outcome.token == endpoint)
    }

    @Test("Web Push 410 and 404: the subscription is gone, unregistered", arguments: [410, 404])
    func webPushGone(status: Int) {
        let outcome = webPushOutcome(status)
        #expect(outcome.status == status && outcome.reason == "subscriptionGone")
        #expect(outcome.invalidatesAddress)
        #expect(outcome.result == .unregistered)
    }

    @Test("Web Push 413, 429, 401 and 403 are refusals that keep the subscription")
    func webPushOtherRefusals() {
        #expect(webPushOutcome(413).reason == "payloadTooLarge")
        #expect(webPushOutcome(429).reason == "tooManyRequests")
        #expect(webPushOutcome(401).reason == "vapidRefused" && webPushOutcome(403).reason == "vapidRefused")
        for status in [413, 429, 401, 403] {
            #expect(!webPushOutcome(status).invalidatesAddress, "\(status)")
            #expect(webPushOutcome(status).result == .rejected, "\(status)")
        }
        #expect(webPushOutcome(500).result == .failed)
    }

    @Test("A stored reason says the address was dead for APNs', FCM's and Web Push's dead-address reasons and Herald's own, not for the others")
    func invalidatesReason() {
        for reason in ["UNREGISTERED", "subscriptionGone", "tokenInvalidated", "Unregistered", "BadDeviceToken", "ExpiredToken"] {
            #expect(PushOutcome.invalidates(reason: reason), "\(reason)")
        }
        for reason in ["INVALID_ARGUMENT", "SENDER_ID_MISMATCH", "QUOTA_EXCEEDED", "vapidRefused", "tooManyRequests", "payloadTooLarge",
                       "BadTopic", "unregistered", "Subscriptiongone", ""] {
            #expect(!PushOutcome.invalidates(reason: reason), "\(reason)")
        }
    }

    @Test("The FCM and Web Push reasons are known to metrics as they are")
    func boundedReasons() {
        for reason in ["UNREGISTERED", "INVALID_ARGUMENT", "SENDER_ID_MISMATCH", "subscriptionGone", "vapidRefused", "tooManyRequests"] {
            #expect(PushOutcome(token: "t", status: 400, reason: reason).boundedReason == reason)
        }
        #expect(PushOutcome(token: "t", status: 400, reason: "HTTP418").boundedReason == "other")
    }
}

@Suite("Web Push requests")
struct WebPushRequestTests {
    @Test("A request carries the encrypted body and TTL, Urgency, Topic and a VAPID authorization for the endpoint's origin")
    func requestHeaders() async throws {
        let key = try ES256Key.generate()
        let settings = WebPushSettings(subject: "mailto:ops@example.com", vapidPrivateKey: try key.privateKeyPEM())
        let loops = HTTP2EventLoops(count: 1, name: "web-push-request-test")
        let pools = WebPushPools(loops: loops)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let client = try WebPushClient(appID: "com.example.web", settings: settings, pools: pools, now: { now })
        let subscription = WebPushSubscription(
            endpoint: "https://push.example:8443/wpush/v2/abc?x=1",
            keys: .init(p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                        auth: "BTBZMqHH6r4Tts7J_aSIgg"))
        let push = try ChannelPush(type: .alert, aps: APS(alert: .text("hi")), custom: [:], collapseID: "standup#3",
                                   expiration: 1_800_000_060, id: "standup#3")
        let message = try WebPushMessage(subscription: subscription, push: push, now: now)
        let request = try client.request(for: message, origin: subscription.origin)
        func header(_ name: String) -> String? { request.headers.first { $0.name == name }?.value }
        #expect(request.method == "POST" && request.path == "/wpush/v2/abc?x=1" && request.authority == "push.example:8443")
        #expect(header("content-encoding") == "aes128gcm")
        #expect(header("ttl") == "60")
        #expect(header("urgency") == "high")
        #expect(header("topic") == WebPushClient.topic(for: "standup#3"))
        #expect(request.body.count == message.plaintext.count + 86 + 16 + 1, "one aes128gcm record: header, tag, delimiter")
        let token = try VAPIDToken.verify(authorization: header("authorization"), expectedAudience: "https://push.example:8443", now: now)
        #expect(token.subject == "mailto:ops@example.com")
        #expect(Base64URL.encode(token.publicKey) == client.vapidPublicKey)
        await pools.closeAll()
        await loops.shutdown()
    }
}
