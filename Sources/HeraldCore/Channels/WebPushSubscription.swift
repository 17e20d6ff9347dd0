import Foundation

/// A browser's push subscription, exactly as `PushSubscription.toJSON()` gives it:
///
/// ```json
/// {"endpoint": "https://fcm.googleapis.com/fcm/send/…", "keys": {"p256dh": "BN…", "auth": "tB…"}}
/// ```
///
/// The endpoint is where pushes go (and the subscription's identity in the token ledger); the keys
/// are what the payload is encrypted to (RFC 8291).
public struct WebPushSubscription: Codable, Hashable, Sendable {
    public struct Keys: Codable, Hashable, Sendable {
        /// The browser's P-256 public key: base64url of the 65-byte uncompressed point.
        public var p256dh: String
        /// The 16-byte authentication secret, base64url.
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public var endpoint: String
    public var keys: Keys

    public init(endpoint: String, keys: Keys) {
        self.endpoint = endpoint
        self.keys = keys
    }

    /// The endpoint's origin (`https://host[:port]`): the VAPID audience and the connection pool key.
    public var origin: String {
        guard let url = URL(string: endpoint), let host = url.host else { return endpoint }
        // RFC 6454: the default port is not part of the serialized origin (push services compare it).
        guard let port = url.port, port != 443 else { return "https://\(host)" }
        return "https://\(host):\(port)"
    }

    /// Checks the shape a registration must have: an https endpoint on an allowed host, a 65-byte
    /// uncompressed point and a 16-byte secret. Whether the point is on the curve is checked where
    /// the crypto lives (the API, before storing).
    ///
    /// - Throws: `invalidWebPushEndpoint`, `webPushHostNotAllowed` or `invalidWebPushKeys` (422).
    public func validated(allowedHosts: WebPushHosts) throws(HeraldError) -> WebPushSubscription {
        guard endpoint.utf8.count <= 2048, let url = URL(string: endpoint), url.scheme == "https",
              let host = url.host, !host.isEmpty, url.user == nil
        else {
            throw .invalid(.invalidWebPushEndpoint, "webPush.endpoint must be an https URL")
        }
        guard allowedHosts.allows(host.lowercased()) else {
            throw .invalid(.webPushHostNotAllowed,
                           "webPush.endpoint names \(host), which is not one of the app's allowed push services")
        }
        guard let point = Self.decodeBase64URL(keys.p256dh), point.count == 65, point[0] == 0x04 else {
            throw .invalid(.invalidWebPushKeys, "webPush.keys.p256dh must be base64url of a 65-byte uncompressed P-256 point")
        }
        guard let secret = Self.decodeBase64URL(keys.auth), secret.count == 16 else {
            throw .invalid(.invalidWebPushKeys, "webPush.keys.auth must be base64url of 16 bytes")
        }
        return self
    }

    /// Base64url, padded or not; nil for anything else (standard base64's `+` and `/` included).
    public static func decodeBase64URL(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ b in
            (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 95 || b == 61
        }) else { return nil }
        var base64 = text.replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}

/// The hosts a subscription's endpoint may name: the public push services by default, so a device
/// registration can never make Herald call an internal address. `*.example.com` matches any
/// subdomain of example.com (not example.com itself).
public struct WebPushHosts: Hashable, Sendable {
    public var patterns: [String]

    public init(_ patterns: [String]) {
        self.patterns = patterns.map { $0.lowercased() }
    }

    /// Chrome and Edge (FCM), Firefox (Mozilla autopush), Safari (Apple), and Windows (WNS).
    public static let publicPushServices = WebPushHosts([
        "fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com", "*.push.apple.com",
        "*.notify.windows.com",
    ])

    public func allows(_ host: String) -> Bool {
        patterns.contains { pattern in
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst(1)) && host.count > pattern.count - 1 }
            return host == pattern
        }
    }
}
