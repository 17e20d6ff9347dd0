import Foundation
import HeraldCore
import Hummingbird
import Testing

// An app's FCM and Web Push settings: "Credentials belong to their app. Only an admin names files
// or custom hosts in push settings; an app key uploads its own credentials as content; nothing
// secret is ever returned." Herald generates the VAPID key pair when none is given, keeps it, and
// shows only its public half.

/// The committed dev service account, as a client uploads it.
enum DevServiceAccount {
    /// The key file's JSON, with `token_uri` set to Google's (the committed one names the sandbox).
    static func json(tokenURI: String = "https://oauth2.googleapis.com/token") -> [String: Any] {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: GuardCerts.path("dev-fcm-service-account.json")))) ?? Data()
        var account = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        account["token_uri"] = tokenURI
        return account
    }

    static let projectID = "herald-dev"
    static let clientEmail = "herald-dev@herald-dev.iam.gserviceaccount.com"
}

/// Base64url decoding for the VAPID public key the API shows.
private func decodeBase64URL(_ text: String) -> [UInt8]? {
    guard !text.contains("+"), !text.contains("/") else { return nil }
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64).map(Array.init)
}

@Suite("Web Push settings of an app")
struct WebPushSettingsTests {
    private let appPath = "/v1/apps/\(Fixture.app)"

    @Test("PUT with a VAPID subject generates the key pair: GET shows the public key (87 base64url characters, a 65-byte 0x04 point) and never the private key")
    func generatedKeyPair() async throws {
        try await withHerald { herald in
            let created = try await herald.api.put(appPath, json: ["webPush": ["subject": "mailto:ops@example.com"]])
            #expect(created.status == .created, "\(created.text)")
            let read = try await herald.api.get(appPath)
            #expect(read.json["webPush"]["subject"].string == "mailto:ops@example.com")
            let publicKey = try #require(read.json["webPush"]["vapidPublicKey"].string, "\(read.text)")
            #expect(publicKey.count == 87)
            let point = try #require(decodeBase64URL(publicKey))
            #expect(point.count == 65 && point.first == 0x04)
            for reply in [created, read] {
                #expect(!reply.text.contains("vapidPrivateKey"), "\(reply.text)")
                #expect(!reply.text.contains("PRIVATE KEY"), "\(reply.text)")
            }
            #expect(created.json["webPush"]["vapidPublicKey"].string == publicKey, "the PUT answers with the same public key")
        }
    }

    @Test("A second PUT keeps the app's VAPID key pair, so existing browser subscriptions stay valid")
    func keyPairKept() async throws {
        try await withHerald { herald in
            let first = try await herald.api.put(appPath, json: ["webPush": ["subject": "mailto:ops@example.com"]])
            let key = try #require(first.json["webPush"]["vapidPublicKey"].string, "\(first.text)")
            let second = try await herald.api.put(appPath, json: ["webPush": ["subject": "https://example.com/contact"],
                                                                  "overflow": "keepSoonest"])
            #expect(second.status == .ok, "\(second.text)")
            #expect(second.json["webPush"]["vapidPublicKey"].string == key)
            #expect(try await herald.api.get(appPath).json["webPush"]["vapidPublicKey"].string == key)
            #expect(try await herald.api.get(appPath).json["webPush"]["subject"].string == "https://example.com/contact")
            // Another app gets its own pair.
            let other = try await herald.api.put("/v1/apps/com.example.other", json: ["webPush": ["subject": "mailto:ops@example.com"]])
            #expect(other.json["webPush"]["vapidPublicKey"].string != key)
        }
    }

    @Test("The webPush settings a client read, sent back unchanged (public key included), keep the key pair")
    func readSettingsSentBack() async throws {
        try await withHerald { herald in
            let first = try await herald.api.put(appPath, json: ["webPush": ["subject": "mailto:ops@example.com"]])
            let key = try #require(first.json["webPush"]["vapidPublicKey"].string, "\(first.text)")
            let shown = try await herald.api.get(appPath).json["webPush"]
            let resend = try await herald.api.send(.put, appPath, body: try JSONEncoder().encode(JSONValue.object(["webPush": shown])))
            #expect(resend.status == .ok, "\(resend.text)")
            #expect(resend.json["webPush"]["vapidPublicKey"].string == key)
        }
    }

    @Test("A subject that is not a mailto: or https: URL is invalidWebPushSettings (422), and stores nothing",
          arguments: ["ops@example.com", "mailto:", "http://example.com", "", "mailto:" + String(repeating: "a", count: 510)])
    func badSubject(subject: String) async throws {
        try await withHerald { herald in
            try await herald.expectRefusal(.put, appPath, json: ["webPush": ["subject": subject]],
                                           status: .unprocessableContent, reason: "invalidWebPushSettings")
            let first = try await herald.api.put(appPath, json: ["webPush": ["subject": "mailto:ops@example.com"]])
            try #require(first.status == .created)
            try await herald.expectRefusal(.put, appPath, json: ["webPush": ["subject": subject]],
                                           status: .unprocessableContent, reason: "invalidWebPushSettings")
        }
    }

    @Test("allowedHosts holds host names or *.domain: a URL or host:port is invalidWebPushSettings (422)")
    func badAllowedHosts() async throws {
        try await withHerald { herald in
            for hosts in [["https://push.example"], ["push.example:443"], [""]] {
                try await herald.expectRefusal(.put, appPath, json: ["webPush": ["subject": "mailto:ops@example.com", "allowedHosts": hosts]],
                                               status: .unprocessableContent, reason: "invalidWebPushSettings")
            }
        }
    }

    @Test("An admin may upload the VAPID private key: the public key shown is its own, the private one is never shown")
    func uploadedPrivateKey() async throws {
        let pem = UploadedCredentials.tokenKey
        try #require(pem.contains("PRIVATE KEY"))
        try await withHerald { herald in
            let created = try await herald.api.put(appPath, json: ["webPush": ["subject": "mailto:ops@example.com", "vapidPrivateKey": pem]])
            #expect(created.status == .created, "\(created.text)")
            // The public point of Certs/dev-apns-key.p8.
            let expected = "BMrTCUK3qtRT13fmoDA7QmCmV1ZeZT9k0VSF-7SjZ1QgiZUHA3QnbUDplmNaa-C8n6GkGsv0pb2nm85Y9Y9xVLw"
            let read = try await herald.api.get(appPath)
            #expect(read.json["webPush"]["vapidPublicKey"].string == expected)
            #expect(!read.text.contains("PRIVATE KEY") && !read.text.contains("vapidPrivateKey"), "\(read.text)")
            // Kept by a PUT that names none.
            let again = try await herald.api.put(appPath, json: ["webPush": ["subject": "mailto:ops@example.com"]])
            #expect(again.json["webPush"]["vapidPublicKey"].string == expected)
        }
    }

    @Test("A VAPID private key that is a public key or not a key is invalidWebPushSettings (422)")
    func badPrivateKey() async throws {
        let publicPEM = UploadedCredentials.text("dev-apns-key.pub.pem")
        try #require(publicPEM.contains("PUBLIC KEY"))
        try await withHerald { herald in
            for key in [publicPEM, "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n", "nonsense"] {
                try await herald.expectRefusal(.put, appPath, json: ["webPush": ["subject": "mailto:ops@example.com", "vapidPrivateKey": key]],
                                               status: .unprocessableContent, reason: "invalidWebPushSettings")
            }
        }
    }

    /// What only an admin may set in webPush settings.
    nonisolated(unsafe) static let adminOnly: [(label: String, settings: [String: Any])] = [
        ("allowedHosts", ["subject": "mailto:ops@example.com", "allowedHosts": ["127.0.0.1"]]),
        ("caFile", ["subject": "mailto:ops@example.com", "caFile": GuardCerts.path("dev-ca.pem")]),
        ("vapidPrivateKey", ["subject": "mailto:ops@example.com", "vapidPrivateKey": UploadedCredentials.tokenKey]),
    ]

    @Test("An app key may not set webPush.allowedHosts, caFile or vapidPrivateKey: 403 forbidden, nothing stored", arguments: 0..<3)
    func appKeyAdminOnly(index: Int) async throws {
        let (label, settings) = Self.adminOnly[index]
        let body = API.encode(["webPush": settings])
        try await withGuardedHerald { herald in
            let reply = try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.send(.put, "/v1/apps/\(GuardApps.alarm)", body: body, key: GuardKeys.alarm)
            }
            #expect(reply.json["error"]["message"].string?.contains(label) == true, "\(reply.text)")
            // With the app already registered too.
            let registered = try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["webPush": ["subject": "mailto:ops@example.com"]],
                                                  key: GuardKeys.alarm)
            try #require(registered.status == .created, "\(registered.text)")
            try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.send(.put, "/v1/apps/\(GuardApps.alarm)", body: body, key: GuardKeys.alarm)
            }
        }
    }

    @Test("An app key sets its own subject, and gets a generated key pair")
    func appKeySetsSubject() async throws {
        try await withGuardedHerald { herald in
            let reply = try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["webPush": ["subject": "mailto:ops@example.com"]],
                                             key: GuardKeys.alarm)
            #expect(reply.status == .created, "\(reply.text)")
            let read = try await herald.get("/v1/apps/\(GuardApps.alarm)", key: GuardKeys.alarm)
            #expect(read.json["webPush"]["vapidPublicKey"].string?.count == 87)
            #expect(!read.text.contains("PRIVATE KEY"))
        }
    }
}

@Suite("FCM settings of an app")
struct FCMSettingsTests {
    private let appPath = "/v1/apps/\(Fixture.app)"

    @Test("PUT with the service account's JSON: GET shows its project and client email, never its private key")
    func serviceAccountUploaded() async throws {
        try await withHerald { herald in
            let created = try await herald.api.put(appPath, json: ["fcm": ["serviceAccount": DevServiceAccount.json()]])
            #expect(created.status == .created, "\(created.text)")
            let read = try await herald.api.get(appPath)
            #expect(read.json["fcm"]["projectId"].string == DevServiceAccount.projectID, "\(read.text)")
            #expect(read.json["fcm"]["clientEmail"].string == DevServiceAccount.clientEmail)
            for reply in [created, read] {
                #expect(!reply.text.contains("PRIVATE KEY"), "\(reply.text)")
                #expect(!reply.text.contains("private_key"), "\(reply.text)")
            }
        }
    }

    @Test("A service account missing a field Herald needs is refused (422), naming the field, and stores nothing",
          arguments: ["project_id", "client_email", "private_key", "token_uri"])
    func missingField(field: String) async throws {
        var account = DevServiceAccount.json()
        account[field] = nil
        let body = API.text(["fcm": ["serviceAccount": account]])
        try await withHerald { herald in
            let reply = try await herald.expectRefusal(.put, appPath, body: body, status: .unprocessableContent, reason: "missingField")
            #expect(reply.json["error"]["message"].string?.contains(field) == true, "\(reply.text)")
        }
    }

    /// Fields present but unusable.
    nonisolated(unsafe) static let unusable: [(label: String, field: String, value: Any)] = [
        ("an empty project_id", "project_id", ""),
        ("a project_id with a slash", "project_id", "herald/dev"),
        ("a client_email that is not an address", "client_email", "herald-dev"),
        ("a private_key that is not PEM", "private_key", "not a key"),
        ("a PEM private_key that is not RSA", "private_key", UploadedCredentials.tokenKey),
        ("an http token_uri", "token_uri", "http://oauth2.googleapis.com/token"),
    ]

    @Test("A service account with an unusable field is invalidFCMServiceAccount (422), and stores nothing", arguments: 0..<6)
    func unusableField(index: Int) async throws {
        let (label, field, value) = Self.unusable[index]
        var account = DevServiceAccount.json()
        account[field] = value
        let body = API.text(["fcm": ["serviceAccount": account]])
        try await withHerald { herald in
            let reply = try await herald.expectRefusal(.put, appPath, body: body,
                                                       status: .unprocessableContent, reason: "invalidFCMServiceAccount")
            #expect(!reply.text.contains("PRIVATE KEY"), "\(label): the key came back in the error: \(reply.text)")
        }
    }

    @Test("serviceAccount and serviceAccountFile together, or neither, is invalidField (422)")
    func oneSourceOnly() async throws {
        try await withHerald { herald in
            try await herald.expectRefusal(.put, appPath,
                                           json: ["fcm": ["serviceAccount": DevServiceAccount.json(),
                                                          "serviceAccountFile": GuardCerts.path("dev-fcm-service-account.json")]],
                                           status: .unprocessableContent, reason: "invalidField")
            try await herald.expectRefusal(.put, appPath, json: ["fcm": [String: Any]()],
                                           status: .unprocessableContent, reason: "invalidField")
        }
    }

    @Test("An admin may name the service account file and another endpoint: GET shows the file path and the account's project")
    func adminNamesFile() async throws {
        try await withHerald { herald in
            let path = GuardCerts.path("dev-fcm-service-account.json")
            let created = try await herald.api.put(appPath, json: ["fcm": ["serviceAccountFile": path, "endpoint": "https://127.0.0.1:9443"]])
            #expect(created.status == .created, "\(created.text)")
            let read = try await herald.api.get(appPath)
            #expect(read.json["fcm"]["serviceAccountFile"].string == path)
            #expect(read.json["fcm"]["projectId"].string == DevServiceAccount.projectID)
            #expect(read.json["fcm"]["endpoint"].string == "https://127.0.0.1:9443")
            #expect(!read.text.contains("PRIVATE KEY"))
        }
    }

    @Test("An endpoint that is not https is invalidFCMSettings (422)")
    func endpointMustBeHTTPS() async throws {
        try await withHerald { herald in
            try await herald.expectRefusal(.put, appPath, json: ["fcm": ["serviceAccount": DevServiceAccount.json(),
                                                                         "endpoint": "http://fcm.googleapis.com"]],
                                           status: .unprocessableContent, reason: "invalidFCMSettings")
        }
    }

    /// What only an admin may set in fcm settings.
    static let adminOnly: [(label: String, settings: @Sendable () -> [String: Any])] = [
        ("fcm.endpoint", { ["serviceAccount": DevServiceAccount.json(), "endpoint": "https://attacker.example:8443"] }),
        ("fcm.caFile", { ["serviceAccount": DevServiceAccount.json(), "caFile": GuardCerts.path("dev-ca.pem")] }),
        ("fcm.serviceAccountFile", { ["serviceAccountFile": GuardCerts.path("dev-fcm-service-account.json")] }),
        ("fcm.serviceAccount.token_uri", { ["serviceAccount": DevServiceAccount.json(tokenURI: "https://attacker.example/token")] }),
    ]

    @Test("An app key may not set fcm endpoint, caFile, serviceAccountFile or a non-Google token_uri: 403 forbidden, nothing stored",
          arguments: 0..<4)
    func appKeyAdminOnly(index: Int) async throws {
        let (label, settings) = Self.adminOnly[index]
        try await withGuardedHerald { herald in
            let reply = try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["fcm": settings()], key: GuardKeys.alarm)
            }
            #expect(reply.json["error"]["message"].string?.contains(label) == true, "\(reply.text)")
        }
    }

    @Test("An app key uploads its own service account, for Google's endpoints (named or not): stored, and shown without the key")
    func appKeyUploadsServiceAccount() async throws {
        try await withGuardedHerald { herald in
            let created = try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["fcm": ["serviceAccount": DevServiceAccount.json()]],
                                               key: GuardKeys.alarm)
            #expect(created.status == .created, "\(created.text)")
            let named = try await herald.put("/v1/apps/\(GuardApps.alarm)",
                                             json: ["fcm": ["serviceAccount": DevServiceAccount.json(), "endpoint": "https://fcm.googleapis.com"]],
                                             key: GuardKeys.alarm)
            #expect(named.status == .ok, "\(named.text)")
            let read = try await herald.get("/v1/apps/\(GuardApps.alarm)", key: GuardKeys.alarm)
            #expect(read.json["fcm"]["projectId"].string == DevServiceAccount.projectID)
            #expect(!read.text.contains("PRIVATE KEY"))
        }
    }
}
