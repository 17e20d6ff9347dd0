import Foundation
import HeraldCrypto
import HeraldHTTP2
import HeraldSandbox
import HeraldTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

typealias Certs = TestCertificates

/// Signing keys: the committed dev key the sandbox trusts, and a stranger's key for forgeries.
enum TestKeys {
    static let devKeyID = "DEVKEY0001"
    static let teamID = "TEAM000001"
    static let dev: ES256Key = try! ES256Key(contentsOfFile: Certs.path("dev-apns-key.p8"))
    /// A throw-away P-256 key that the sandbox has never heard of.
    static let stranger: ES256Key = try! ES256Key(pem: """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgDcRhFbYcPtf3ZoqI
        e3byv8KDU70hwLXXaDya36lw5v+hRANCAARjBJDXfDl8Y6zeUVNWmaVqmq6wIBlN
        jFpOuYmUI3MdwlOU0NOZhURsoFaVZXJOl1KvYwG+5XJe4qLHQ4TbYxYs
        -----END PRIVATE KEY-----
        """)

    /// `authorization` header value with a fresh JWT (or one issued at `issuedAt`).
    static func bearer(issuedAt: Date = Date(), keyID: String = devKeyID, key: ES256Key = dev) throws -> String {
        "bearer " + (try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: issuedAt, key: key)).jwt
    }
}

/// Device tokens for tests: 32 bytes of hex, like real ones, distinct per seed.
func deviceToken(_ seed: Int = 1) -> String { testDeviceToken(seed, family: 0x5b) }

/// An alert payload, padded with spaces inside the string to exactly `bytes` when asked.
func alertBody(title: String = "Hello", body: String = "World", bytes: Int? = nil) -> String {
    let base = #"{"aps":{"alert":{"title":"\#(title)","body":"\#(body)"}}}"#
    guard let bytes, bytes > base.utf8.count else { return base }
    let padding = String(repeating: "x", count: bytes - base.utf8.count)
    return #"{"aps":{"alert":{"title":"\#(title)","body":"\#(body)\#(padding)"}}}"#
}

/// A push request that passes every check; tests change one thing to break one rule.
struct TestPush {
    var method = "POST"
    var path: String
    var headers: [HTTP2Header]
    var body: String

    init(token: String = deviceToken(), type: String = "alert", topic: String = "com.example.herald",
         authorization: String?, body: String = alertBody()) {
        path = "/3/device/\(token)"
        headers = [("apns-push-type", type), ("apns-topic", topic)]
        if let authorization { headers.append(("authorization", authorization)) }
        self.body = body
    }

    /// Replaces (or adds) a header; nil removes it.
    mutating func set(_ name: String, _ value: String?) {
        headers.removeAll { $0.name == name }
        if let value { headers.append((name, value)) }
    }

    var request: HTTP2Request {
        HTTP2Request(method: method, path: path, authority: "localhost", headers: headers, body: Array(body.utf8))
    }
}

/// A client connection that trusts the dev CA; with `clientCertificate`, it authenticates as
/// `dev-client.pem` (certificate auth).
func connect(_ gateway: SandboxGateway, clientCertificate: Bool = false) async throws -> HTTP2ClientConnection {
    let identity: TLSConfiguration.ClientCertificate? = clientCertificate
        ? .pem(certificateFile: Certs.path("dev-client.pem"), keyFile: Certs.path("dev-client.key")) : nil
    let tls = TLSConfiguration(trustRoots: .caFile(Certs.path("dev-ca.pem")), clientCertificate: identity)
    return try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: gateway.port, tls: tls, timeout: .seconds(10))
}

extension HTTP2ClientConnection {
    func send(_ push: TestPush) async throws -> HTTP2Response {
        try await send(push.request, timeout: .seconds(10))
    }
}

extension HTTP2Response {
    /// The JSON error body as a dictionary.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    var reason: String? { json["reason"] as? String }
}

/// A tiny HTTP/1.1 client for the admin API.
struct AdminClient {
    let port: Int

    struct Reply {
        var status: Int
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    func send(_ method: String, _ path: String, body: String? = nil) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!, timeoutInterval: 10)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
    }
}
