import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Logging
import Synchronization

/// The sandbox's Web Push service (RFC 8030): it issues subscriptions as a browser's push service
/// would (`POST /webpush/subscriptions` on the admin API answers a `PushSubscription.toJSON()`),
/// and takes `POST /wp/{id}` as the real services do: a VAPID `Authorization` for this origin
/// (RFC 8292), a `TTL`, `Content-Encoding: aes128gcm`, and a body that decrypts with the
/// subscription's keys (RFC 8291). What arrives is filed decrypted.
///
/// Faults by subscription-id prefix (``ChannelFault``): `gone…` 410, `notfound…` 404, `toolarge…`
/// 413, `quota…` one 429 with `Retry-After: 1`, `unavailable…` one 503.
final class WebPushService: Sendable {
    private struct Subscription: Sendable {
        let key: ES256Key
        let auth: [UInt8]
    }

    private let subscriptions = Mutex<[String: Subscription]>([:])
    private let inboxes: ChannelInboxes
    private let passed = PassedFaults()
    private let logger: Logger

    init(inboxes: ChannelInboxes, logger: Logger) {
        self.inboxes = inboxes
        self.logger = logger
    }

    static let pathPrefix = "/wp/"

    /// A new subscription on `origin` (the sandbox's own `https://host:port`), its id starting
    /// with `prefix` to choose a fault.
    func subscribe(origin: String, prefix: String) throws -> WebPushSubscription {
        let key = try ES256Key.generate()
        let auth = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let id = prefix + Base64URL.encode((0..<12).map { _ in UInt8.random(in: 0...255) })
        subscriptions.withLock { $0[id] = Subscription(key: key, auth: auth) }
        return WebPushSubscription(endpoint: origin + Self.pathPrefix + id,
                                   keys: .init(p256dh: Base64URL.encode(try key.publicKeyPoint), auth: Base64URL.encode(auth)))
    }

    func respond(to request: HTTP2ServerRequest) -> HTTP2Response {
        let id = String(request.path.dropFirst(Self.pathPrefix.count))
        guard request.method == "POST" else { return Self.answer(405, "POST only") }
        guard let subscription = subscriptions.withLock({ $0[id] }) else {
            inboxes.noteRefusal(id)
            return Self.answer(404, "no such subscription")
        }
        let vapid: VAPIDToken
        do {
            vapid = try VAPIDToken.verify(authorization: request.header("authorization"),
                                          expectedAudience: "https://\(request.authority)", now: Date())
        } catch {
            inboxes.noteRefusal(id)
            return Self.answer(error.statusCode, "VAPID: \(error)")
        }
        guard let ttl = request.header("ttl"), Int(ttl).map({ $0 >= 0 }) == true else {
            inboxes.noteRefusal(id)
            return Self.answer(400, "a TTL header is required")
        }
        guard request.header("content-encoding") == "aes128gcm" else {
            inboxes.noteRefusal(id)
            return Self.answer(415, "Content-Encoding must be aes128gcm")
        }
        if let urgency = request.header("urgency"), !["very-low", "low", "normal", "high"].contains(urgency) {
            inboxes.noteRefusal(id)
            return Self.answer(400, "Urgency must be very-low, low, normal or high")
        }
        if let topic = request.header("topic"), topic.isEmpty || topic.utf8.count > 32 || !topic.utf8.allSatisfy(Self.isBase64URL) {
            inboxes.noteRefusal(id)
            return Self.answer(400, "Topic must be at most 32 base64url characters")
        }
        guard request.body.count <= WebPushEncryption.maximumBodyByteCount else {
            inboxes.noteRefusal(id)
            return Self.answer(413, "the body is over 4096 bytes")
        }
        let plaintext: [UInt8]
        do {
            plaintext = try WebPushEncryption.decrypt(body: request.body, subscriberPrivateKey: subscription.key,
                                                      authSecret: subscription.auth)
        } catch {
            inboxes.noteRefusal(id)
            return Self.answer(400, "the body does not decrypt with the subscription's keys")
        }
        if let fault = ChannelFault(address: id), !fault.isPassing || passed.firstTime(id) {
            inboxes.noteRefusal(id)
            switch fault {
            case .gone: return Self.answer(410, "the subscription has expired")
            case .notfound: return Self.answer(404, "no such subscription")
            case .toolarge: return Self.answer(413, "payload too large")
            case .quota: return HTTP2Response(status: 429, headers: [("retry-after", "1")], body: Array("slow down".utf8))
            case .unavailable: return Self.answer(503, "unavailable")
            case .unregistered, .invalid, .mismatch: break
            }
        }
        let message = (try? JSONDecoder().decode(JSONValue.self, from: Data(plaintext)))
            ?? .string(String(decoding: plaintext, as: UTF8.self))
        var headers: [String: String] = ["vapid-subject": vapid.subject]
        for header in request.headers where header.name != "authorization" { headers[header.name] = header.value }
        let location = "/m/" + Base64URL.encode((0..<12).map { _ in UInt8.random(in: 0...255) })
        inboxes.append(ChannelEntry(address: id, receivedAt: Date(), message: message, headers: headers, id: location))
        logger.info("web push accepted", metadata: ["subscription": "\(id)"])
        return HTTP2Response(status: 201, headers: [("location", location)])
    }

    /// RFC 8030 §5.4: a topic uses the URL- and filename-safe base64 alphabet.
    static func isBase64URL(_ byte: UInt8) -> Bool {
        (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte == 45 || byte == 95
    }

    static func answer(_ status: Int, _ text: String) -> HTTP2Response {
        HTTP2Response(status: status, headers: [("content-type", "text/plain")], body: Array(text.utf8))
    }
}
