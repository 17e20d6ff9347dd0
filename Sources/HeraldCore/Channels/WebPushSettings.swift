/// How an app reaches browsers with Web Push: the VAPID subject and key pair (RFC 8292), and which
/// push services its subscriptions may name.
///
/// ```json
/// {"subject": "mailto:ops@example.com"}
/// ```
/// Herald generates the key pair when none is given; the public key is the `applicationServerKey`
/// a page passes to `pushManager.subscribe`. The private key is stored, never shown.
public struct WebPushSettings: Codable, Hashable, Sendable {
    /// `mailto:` or `https:` contact for the push service's operators.
    public var subject: String
    /// The VAPID private key, PKCS#8 PEM.
    public var vapidPrivateKey: String?
    /// The VAPID public key, base64url of the 65-byte uncompressed point.
    public var vapidPublicKey: String?
    /// A CA file that signs the push services, instead of the system roots. Admin only.
    public var caFile: String?
    /// Hosts subscription endpoints may name; the public push services when nil. Admin only.
    public var allowedHosts: [String]?

    public init(subject: String, vapidPrivateKey: String? = nil, vapidPublicKey: String? = nil, caFile: String? = nil,
                allowedHosts: [String]? = nil) {
        self.subject = subject
        self.vapidPrivateKey = vapidPrivateKey
        self.vapidPublicKey = vapidPublicKey
        self.caFile = caFile
        self.allowedHosts = allowedHosts
    }

    public var hosts: WebPushHosts { allowedHosts.map(WebPushHosts.init) ?? .publicPushServices }

    /// Checks the subject and the host patterns.
    public func validate() throws(HeraldError) {
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://"), subject.utf8.count > 8, subject.utf8.count <= 512 else {
            throw .invalid(.invalidWebPushSettings, "webPush.subject must be a mailto: or https: URL")
        }
        for pattern in allowedHosts ?? [] where pattern.isEmpty || pattern.contains("/") || pattern.contains(":") {
            throw .invalid(.invalidWebPushSettings, "webPush.allowedHosts holds host names (or *.domain), not '\(pattern)'")
        }
    }

    /// What only an admin may set.
    public var adminOnlyFields: [String] {
        var fields: [String] = []
        if vapidPrivateKey != nil { fields.append("webPush.vapidPrivateKey") }
        if caFile != nil { fields.append("webPush.caFile") }
        if allowedHosts != nil { fields.append("webPush.allowedHosts") }
        return fields
    }

    /// As the API shows them: no private key.
    public var masked: WebPushSettings {
        var copy = self
        copy.vapidPrivateKey = nil
        return copy
    }
}
