import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Logging
import Synchronization

/// The sandbox's FCM HTTP v1: an OAuth token endpoint (`POST /token`) that checks the service
/// account's RS256 assertion as Google documents it, and `POST /v1/projects/{project}/messages:send`,
/// which checks the access token and the message shape (string-only `data`, a token, at most
/// 4,096 bytes) and files it in the token's inbox.
///
/// Faults by token prefix (``ChannelFault``): `unregistered…` 404 UNREGISTERED, `invalid…` 400
/// INVALID_ARGUMENT, `mismatch…` 403 SENDER_ID_MISMATCH, `quota…` one 429 QUOTA_EXCEEDED with
/// `Retry-After: 1`, `unavailable…` one 503.
final class FCMService: Sendable {
    /// Service accounts whose assertions are accepted, by client email.
    private let accounts: [String: (projectID: String, key: RS256Key)]
    private let inboxes: ChannelInboxes
    private let passed = PassedFaults()
    /// Access tokens issued and not revoked, with their expiry.
    private let issued = Mutex<[String: Date]>([:])
    private let tokenLifetime: TimeInterval
    private let logger: Logger

    init(accounts: [String: (projectID: String, key: RS256Key)], inboxes: ChannelInboxes, tokenLifetime: TimeInterval = 3600,
         logger: Logger) {
        self.accounts = accounts
        self.inboxes = inboxes
        self.tokenLifetime = tokenLifetime
        self.logger = logger
    }

    static func handles(_ path: String) -> Bool { path == "/token" || path.hasPrefix("/v1/projects/") }

    func respond(to request: HTTP2ServerRequest) -> HTTP2Response {
        guard request.method == "POST" else { return Self.error(405, "METHOD_NOT_ALLOWED", "POST only") }
        return request.path == "/token" ? grant(request) : send(request)
    }

    /// Forgets every access token, as if they had expired: the next send with one is a 401.
    func revokeAccessTokens() { issued.withLock { $0.removeAll() } }

    private func grant(_ request: HTTP2ServerRequest) -> HTTP2Response {
        let form = Self.form(String(decoding: request.body, as: UTF8.self))
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"] else {
            return Self.oauthError("unsupported_grant_type", "grant_type must be the JWT bearer grant")
        }
        guard let issuer = Self.claim("iss", in: assertion), let account = accounts[issuer] else {
            return Self.oauthError("invalid_grant", "Invalid JWT: unknown service account")
        }
        do {
            let claims = try OAuthAssertion.verify(assertion, key: account.key, expectedAudience: "https://\(request.authority)/token",
                                                   now: Date())
            guard claims.scope.split(separator: " ").contains(Substring(FCMSettings.scope)) else {
                return Self.oauthError("invalid_scope", "the assertion does not ask for the firebase.messaging scope")
            }
        } catch {
            return Self.oauthError("invalid_grant", "Invalid JWT Signature or claims: \(error)")
        }
        let token = "ya29.sandbox-" + Base64URL.encode((0..<24).map { _ in UInt8.random(in: 0...255) })
        issued.withLock { $0[token] = Date().addingTimeInterval(tokenLifetime) }
        let body = #"{"access_token":"\#(token)","expires_in":\#(Int(tokenLifetime)),"token_type":"Bearer"}"#
        return HTTP2Response(status: 200, headers: [("content-type", "application/json")], body: Array(body.utf8))
    }

    private func send(_ request: HTTP2ServerRequest) -> HTTP2Response {
        let parts = request.path.split(separator: "/")
        guard parts.count == 4, parts[3].hasSuffix("messages:send") || parts[3] == "messages:send" else {
            return Self.error(404, "NOT_FOUND", "no such method")
        }
        let project = String(parts[2])
        guard let bearer = request.header("authorization"), bearer.hasPrefix("Bearer "),
              let expiry = issued.withLock({ $0[String(bearer.dropFirst(7))] }), expiry > Date()
        else {
            return Self.error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        }
        guard request.header("content-type")?.hasPrefix("application/json") == true,
              let body = try? JSONDecoder().decode(JSONValue.self, from: Data(request.body)),
              case .object(let root) = body, case .object(let message)? = root["message"],
              case .string(let token)? = message["token"], !token.isEmpty
        else {
            return Self.error(400, "INVALID_ARGUMENT", "the body must be {\"message\": {\"token\": …}}")
        }
        if case .object(let data)? = message["data"], data.values.contains(where: { if case .string = $0 { false } else { true } }) {
            inboxes.noteRefusal(token)
            return Self.error(400, "INVALID_ARGUMENT", "Invalid value at 'message.data': data values must be strings")
        }
        var unsized = message
        unsized["token"] = nil
        if let size = try? JSONEncoder().encode(JSONValue.object(unsized)).count, size > FCMMessage.maximumPayloadBytes {
            inboxes.noteRefusal(token)
            return Self.error(400, "INVALID_ARGUMENT", "Message is too big")
        }
        if let fault = ChannelFault(address: token), !fault.isPassing || passed.firstTime(token) {
            inboxes.noteRefusal(token)
            switch fault {
            case .unregistered: return Self.error(404, "NOT_FOUND", "Requested entity was not found.", code: "UNREGISTERED")
            case .invalid:
                return Self.error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                                  code: "INVALID_ARGUMENT")
            case .mismatch: return Self.error(403, "PERMISSION_DENIED", "SenderId mismatch", code: "SENDER_ID_MISMATCH")
            case .quota:
                return Self.error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", code: "QUOTA_EXCEEDED", retryAfter: 1)
            case .unavailable: return Self.error(503, "UNAVAILABLE", "The service is currently unavailable.", code: "UNAVAILABLE")
            case .gone, .notfound, .toolarge: break
            }
        }
        let name = "projects/\(project)/messages/\(UInt64.random(in: 1...UInt64.max))"
        if root["validate_only"] != .bool(true) {
            var headers: [String: String] = [:]
            for header in request.headers where header.name != "authorization" { headers[header.name] = header.value }
            inboxes.append(ChannelEntry(address: token, receivedAt: Date(), message: .object(message), headers: headers, id: name))
            logger.info("fcm message accepted", metadata: ["token": "\(DeviceRules.redacted(token: token))"])
        }
        return HTTP2Response(status: 200, headers: [("content-type", "application/json")], body: Array(#"{"name":"\#(name)"}"#.utf8))
    }

    /// Google's error shape, with the `FcmError` detail when there is a code.
    static func error(_ status: Int, _ statusText: String, _ message: String, code: String? = nil,
                      retryAfter: Int? = nil) -> HTTP2Response {
        var error: [String: JSONValue] = ["code": .number(Double(status)), "message": .string(message), "status": .string(statusText)]
        if let code {
            error["details"] = .array([.object(["@type": .string("type.googleapis.com/google.firebase.fcm.v1.FcmError"),
                                                "errorCode": .string(code)])])
        }
        let body = (try? JSONEncoder().encode(JSONValue.object(["error": .object(error)]))) ?? Data()
        var headers: [HTTP2Header] = [("content-type", "application/json")]
        if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
        return HTTP2Response(status: status, headers: headers, body: [UInt8](body))
    }

    static func oauthError(_ error: String, _ description: String) -> HTTP2Response {
        let body = (try? JSONEncoder().encode(["error": error, "error_description": description])) ?? Data()
        return HTTP2Response(status: 400, headers: [("content-type", "application/json")], body: [UInt8](body))
    }

    /// An unverified claim of a JWT, to pick the key that verifies it.
    static func claim(_ name: String, in jwt: String) -> String? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let bytes = Base64URL.decode(parts[1]),
              let claims = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
        return claims[name] as? String
    }

    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
            fields[decode(parts[0])] = decode(parts[1])
        }
        return fields
    }
}
