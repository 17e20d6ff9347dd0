import Foundation
import HeraldCore
import Hummingbird
import Testing

// "Credentials belong to their app. Only an admin names files or custom hosts in push settings; an
// app key uploads its own credentials as content; nothing secret is ever returned or logged."

/// The committed dev credentials as text, the way a client uploads them.
enum UploadedCredentials {
    static func text(_ name: String) -> String {
        (try? String(contentsOfFile: GuardCerts.directory + "/" + name, encoding: .utf8)) ?? ""
    }

    static var tokenKey: String { text("dev-apns-key.p8") }
    static var certificate: String { text("dev-client.pem") }
    static var privateKey: String { text("dev-client.key") }
    /// `dev-client.p12` (password `herald`) as base64.
    static var pkcs12: String {
        (try? Data(contentsOf: URL(fileURLWithPath: GuardCerts.directory + "/dev-client.p12")))?.base64EncodedString() ?? ""
    }
    static let pkcs12Password = "herald"

    static var tokenAuth: [String: Any] {
        ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001", "key": tokenKey]
    }
}

extension GuardedHerald {
    /// Push settings that reach this test's sandbox (admin only: a custom host and a CA file).
    func sandboxSettings(auth: [String: Any]) -> [String: Any] {
        ["environment": "https://127.0.0.1:\(sandbox.port)", "caFile": GuardCerts.directory + "/dev-ca.pem", "auth": auth]
    }
}

@Suite("Credentials belong to their app")
struct CredentialOwnershipTests {
    /// Push settings an app key may not store, each naming something on the server.
    nonisolated(unsafe) static let adminOnlySettings: [(label: String, settings: [String: Any])] = [
        ("a token key file (another app's .p8)", ["environment": "production",
                                                  "auth": ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001",
                                                           "keyFile": GuardCerts.directory + "/dev-apns-key.p8"]]),
        ("a certificate file", ["environment": "production",
                                "auth": ["type": "certificate", "certFile": GuardCerts.directory + "/dev-client.pem",
                                         "keyFile": GuardCerts.directory + "/dev-client.key"]]),
        ("a CA file", ["environment": "production", "caFile": "/etc/passwd", "auth": UploadedCredentials.tokenAuth]),
        ("a custom host", ["environment": "https://attacker.example:8443", "auth": UploadedCredentials.tokenAuth]),
    ]

    @Test("An app key may not name server files or custom hosts in push settings: 403 forbidden, nothing stored",
          arguments: 0..<4)
    func appKeyCannotNameServerFiles(index: Int) async throws {
        let label = Self.adminOnlySettings[index].label
        let body = API.encode(["push": Self.adminOnlySettings[index].settings])
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let reply = try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.send(.put, "/v1/apps/\(GuardApps.alarm)", body: body, key: GuardKeys.alarm)
            }
            #expect(reply.json["error"]["message"].string?.contains("admin") == true, "\(label): \(reply.text)")
        }
    }

    @Test("An app key uploads its own token key as content: stored, and shown masked")
    func appKeyUploadsTokenKey() async throws {
        try await withGuardedHerald { herald in
            let reply = try await herald.put("/v1/apps/\(GuardApps.alarm)",
                                             json: ["push": ["environment": "sandbox", "auth": UploadedCredentials.tokenAuth]],
                                             key: GuardKeys.alarm)
            #expect(reply.status == .created, "\(reply.text)")
            let read = try await herald.get("/v1/apps/\(GuardApps.alarm)", key: GuardKeys.alarm)
            #expect(read.json["push"]["auth"]["key"].string == "********", "\(read.text)")
            #expect(read.json["push"]["auth"]["teamId"].string == "DEVTEAM001")
            #expect(!read.text.contains("PRIVATE KEY"), "the uploaded key came back: \(read.text)")
        }
    }

    @Test("An uploaded key that is not a P-256 PEM key is refused: 422 invalidPushCredentials, nothing stored")
    func brokenUploadRefused() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            var auth = UploadedCredentials.tokenAuth
            auth["key"] = "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n"
            try await herald.expectRefused(.unprocessableContent, "invalidPushCredentials") {
                try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["push": ["environment": "sandbox", "auth": auth]],
                                     key: GuardKeys.alarm)
            }
        }
    }

    /// Uploaded identities: a token key, a PEM certificate with its key, and a PKCS#12 bundle.
    static let uploadedAuths: [(label: String, auth: @Sendable () -> [String: Any], secrets: [String])] = [
        ("token key", { UploadedCredentials.tokenAuth }, ["key"]),
        ("PEM certificate and key", {
            ["type": "certificate", "certificate": UploadedCredentials.certificate, "privateKey": UploadedCredentials.privateKey]
        }, ["certificate", "privateKey"]),
        ("PKCS#12 with a password", {
            ["type": "certificate", "pkcs12": UploadedCredentials.pkcs12, "password": UploadedCredentials.pkcs12Password]
        }, ["pkcs12", "password"]),
    ]

    @Test("Uploaded credentials authenticate pushes; every secret reads back as ********, and sending the mask back keeps it",
          arguments: 0..<3)
    func uploadedCredentialsPush(index: Int) async throws {
        let (label, auth, secrets) = Self.uploadedAuths[index]
        try await withGuardedHerald { herald in
            let token = guardToken(7)
            let put = try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["push": herald.sandboxSettings(auth: auth())])
            try #require(put.status == .created, "\(label): \(put.text)")
            let first = try await herald.post("/v1/push", json: ["notifications": [["app": GuardApps.alarm, "tokens": [token],
                                                                                    "aps": ["alert": "uploaded"]]]])
            #expect(first.json["results"][0]["status"].int == 200, "\(label): \(first.text)")

            let read = try await herald.get("/v1/apps/\(GuardApps.alarm)")
            for secret in secrets {
                #expect(read.json["push"]["auth"][secret].string == "********", "\(label): \(secret) in \(read.text)")
            }
            #expect(!read.text.contains("-----BEGIN"), "\(label): PEM text came back: \(read.text)")

            // What a client read, sent back unchanged, keeps the stored secrets working.
            guard case .object(let shown) = read.json["push"] else { Issue.record("no push settings"); return }
            let resend = try await herald.send(.put, "/v1/apps/\(GuardApps.alarm)",
                                               body: try JSONEncoder().encode(JSONValue.object(["push": .object(shown)])))
            #expect(resend.status == .ok, "\(label): \(resend.text)")
            let second = try await herald.post("/v1/push", json: ["notifications": [["app": GuardApps.alarm, "tokens": [token],
                                                                                     "aps": ["alert": "still works"]]]])
            #expect(second.json["results"][0]["status"].int == 200, "\(label): \(second.text)")
            #expect(herald.inbox(token).count == 2)
        }
    }

    @Test("The mask sent where nothing is stored is refused: 422 invalidPushCredentials")
    func maskWithoutStoredSecret() async throws {
        try await withGuardedHerald { herald in
            var auth = UploadedCredentials.tokenAuth
            auth["key"] = "********"
            let reply = try await herald.put("/v1/apps/\(GuardApps.weather)", json: ["push": ["environment": "sandbox", "auth": auth]],
                                             key: GuardKeys.weather)
            expectError(reply, status: .unprocessableContent, reason: "invalidPushCredentials")
            #expect(try await herald.get("/v1/apps/\(GuardApps.weather)").status == .notFound)
        }
    }

    @Test("push.credentialsDir: a path outside it, by .. or by symlink, is refused for admins too: 422 credentialPathNotAllowed")
    func credentialsDirectoryConfines() async throws {
        let outside = TemporaryDirectory.make()
        let inside = TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(outside); TemporaryDirectory.remove(inside) }
        let fileManager = FileManager.default
        for name in ["dev-apns-key.p8", "dev-ca.pem"] {
            try fileManager.copyItem(atPath: GuardCerts.directory + "/" + name, toPath: inside + "/" + name)
            try fileManager.copyItem(atPath: GuardCerts.directory + "/" + name, toPath: outside + "/" + name)
        }
        try fileManager.createSymbolicLink(atPath: inside + "/linked.p8", withDestinationPath: outside + "/dev-apns-key.p8")
        var options = GuardOptions()
        options.pushCredentialsDirectory = inside
        try await withGuardedHerald(options: options) { herald in
            func settings(key: String) -> [String: Any] {
                herald.sandboxSettings(auth: ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001", "keyFile": key])
                    .merging(["caFile": inside + "/dev-ca.pem"]) { $1 }
            }
            let allowed = try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["push": settings(key: inside + "/dev-apns-key.p8")])
            #expect(allowed.status == .created, "\(allowed.text)")
            let device = try await herald.put("/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)",
                                              json: ["timeZone": "UTC", "token": guardToken(1)])
            #expect(device.status == .created, "\(device.text)")
            for path in [outside + "/dev-apns-key.p8", inside + "/../" + URL(fileURLWithPath: outside).lastPathComponent + "/dev-apns-key.p8",
                         inside + "/linked.p8"] {
                try await herald.expectRefused(.unprocessableContent, "credentialPathNotAllowed") {
                    try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["push": settings(key: path)])
                }
            }
            var outsideCA = settings(key: inside + "/dev-apns-key.p8")
            outsideCA["caFile"] = outside + "/dev-ca.pem"
            try await herald.expectRefused(.unprocessableContent, "credentialPathNotAllowed") {
                try await herald.put("/v1/apps/\(GuardApps.alarm)", json: ["push": outsideCA])
            }
        }
    }

    @Test("push.allowedEnvironments: an admin may name only the listed hosts: 422 pushEnvironmentNotAllowed")
    func allowedEnvironments() async throws {
        var options = GuardOptions()
        options.pushAllowedEnvironments = ["https://push.internal.example:443"]
        try await withGuardedHerald(options: options) { herald in
            let refused = try await herald.put("/v1/apps/\(GuardApps.alarm)",
                                               json: ["push": herald.sandboxSettings(auth: UploadedCredentials.tokenAuth)])
            expectError(refused, status: .unprocessableContent, reason: "pushEnvironmentNotAllowed")
            #expect(try await herald.get("/v1/apps/\(GuardApps.alarm)").status == .notFound, "a refused app was stored")
            // Apple's environments are always allowed.
            let apple = try await herald.put("/v1/apps/\(GuardApps.alarm)",
                                             json: ["push": ["environment": "production", "auth": UploadedCredentials.tokenAuth]])
            #expect(apple.status == .created, "\(apple.text)")
        }
        // Listed (as host:port), the sandbox is allowed, and pushes.
        options.pushAllowedEnvironments = nil
        options.allowedEnvironmentsIncludeSandbox = true
        try await withGuardedHerald(options: options) { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(3))
            let result = try await herald.post("/v1/push", json: ["notifications": [["app": GuardApps.alarm, "tokens": [guardToken(3)],
                                                                                     "aps": ["alert": "listed"]]]])
            #expect(result.json["results"][0]["status"].int == 200, "\(result.text)")
        }
    }

    @Test("The access check compares the decoded {app} parameter: an encoded other app is still refused: 403 forbidden")
    func encodedAppParameter() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.weather, token: guardToken(2))
            let encoded = GuardApps.weather.replacingOccurrences(of: ".", with: "%2E")
            for path in ["/v1/apps/\(encoded)", "/v1/apps/\(encoded)/devices/\(GuardApps.device)",
                         "/v1/apps/\(encoded)/devices/\(GuardApps.device)/notifications"] {
                let reply = try await herald.get(path, key: GuardKeys.alarm)
                expectError(reply, status: .forbidden, reason: "forbidden")
            }
            // The same encoded path names the same app for its own key and for admins.
            let own = try await herald.get("/v1/apps/\(encoded)", key: GuardKeys.weather)
            #expect(own.status == .ok, "\(own.text)")
            #expect(own.json["id"].string == GuardApps.weather)
        }
    }
}
