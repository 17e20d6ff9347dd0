import Foundation
import HeraldAPI
import HeraldComposition
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

// Auth, from the design: "API keys, either admin or scoped to one app. Without keys the server
// binds only to loopback." Every refusal here is also checked to have pushed nothing and stored
// nothing.

/// One way of (not) presenting a key.
struct PresentedCredential: Sendable, CustomTestStringConvertible {
    var label: String
    var authorization: String?

    var testDescription: String { label }

    static let refused: [PresentedCredential] = [
        PresentedCredential(label: "no Authorization header", authorization: nil),
        PresentedCredential(label: "an unknown key", authorization: "Bearer not-a-configured-key"),
        PresentedCredential(label: "an empty bearer", authorization: "Bearer "),
        PresentedCredential(label: "the admin key without the Bearer scheme", authorization: GuardKeys.admin),
        PresentedCredential(label: "the admin key as Basic credentials", authorization: "Basic \(GuardKeys.admin)"),
        PresentedCredential(label: "a prefix of the admin key", authorization: "Bearer \(GuardKeys.admin.dropLast())"),
    ]
}

@Suite("Access control: API keys and app scope")
struct AccessControlTests {
    @Test("With keys configured, a request without a valid key is refused: 401 unauthorized, nothing changes",
          arguments: PresentedCredential.refused)
    func missingOrWrongKey(credential: PresentedCredential) async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let send = { (method: HTTPRequest.Method, path: String, json: [String: Any]?) async throws -> Reply in
                try await herald.send(method, path, body: json.map { API.encode($0) }, key: nil,
                                      authorization: credential.authorization)
            }
            try await herald.expectRefused(.unauthorized, "unauthorized") {
                try await send(.get, "/v1/apps/\(GuardApps.alarm)", nil)
            }
            try await herald.expectRefused(.unauthorized, "unauthorized") {
                try await send(.put, "/v1/apps/\(GuardApps.weather)", [:])
            }
            try await herald.expectRefused(.unauthorized, "unauthorized") {
                try await send(.put, "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)",
                               ["timeZone": "Asia/Tokyo", "token": guardToken(2)])
            }
            try await herald.expectRefused(.unauthorized, "unauthorized") {
                try await send(.post, "/v1/push", ["notifications": [["app": GuardApps.alarm, "tokens": [guardToken(1)],
                                                                     "aps": ["alert": "let me in"]]]])
            }
            try await herald.expectRefused(.unauthorized, "unauthorized") {
                try await send(.get, "/v1/feedback/outbox", nil)
            }
            #expect(herald.inbox(guardToken(1)).isEmpty)
        }
    }

    @Test("/healthz answers without a key")
    func healthNeedsNoKey() async throws {
        try await withGuardedHerald { herald in
            let reply = try await herald.get("/healthz", key: nil)
            #expect(reply.status == .ok, "\(reply.text)")
        }
    }

    @Test("An admin key reaches every app")
    func adminReachesEveryApp() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            try await herald.registerApp(GuardApps.weather, token: guardToken(2))
            for app in [GuardApps.alarm, GuardApps.weather] {
                let reply = try await herald.get("/v1/apps/\(app)/devices/\(GuardApps.device)", key: GuardKeys.admin)
                #expect(reply.status == .ok, "\(reply.text)")
            }
        }
    }

    @Test("An app key works on its own app")
    func appKeyOnItsOwnApp() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let device = "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)"
            let read = try await herald.get(device, key: GuardKeys.alarm)
            #expect(read.status == .ok, "\(read.text)")
            let write = try await herald.put("/v1/apps/\(GuardApps.alarm)/devices/ipad-2", json: ["timeZone": "Asia/Tokyo"],
                                             key: GuardKeys.alarm)
            #expect(write.status == .created, "\(write.text)")
            let push = try await herald.post("/v1/push", json: ["notifications": [
                ["app": GuardApps.alarm, "tokens": [guardToken(1)], "aps": ["alert": "own app"]],
            ]], key: GuardKeys.alarm)
            #expect(push.status == .ok)
            #expect(push.json["results"][0]["status"].int == 200, "\(push.text)")
            #expect(herald.inbox(guardToken(1)).count == 1)
        }
    }

    @Test("An app key on another app's path is refused: 403 forbidden, nothing changes")
    func appKeyOnAnotherAppsPath() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            try await herald.registerApp(GuardApps.weather, token: guardToken(2))
            let other = "/v1/apps/\(GuardApps.weather)"
            try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.get(other, key: GuardKeys.alarm)
            }
            try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.get("\(other)/devices/\(GuardApps.device)", key: GuardKeys.alarm)
            }
            try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.put("\(other)/devices/\(GuardApps.device)", json: ["timeZone": "Asia/Tokyo", "token": guardToken(9)],
                                     key: GuardKeys.alarm)
            }
            try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.post("\(other)/devices/\(GuardApps.device)/notifications",
                                      json: notification(fireDate: "2026-12-01T07:00:00Z"), key: GuardKeys.alarm)
            }
            try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.delete("\(other)/devices/\(GuardApps.device)", key: GuardKeys.alarm)
            }
            // Registering a brand-new app is another app too.
            try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.put("/v1/apps/com.example.intruder", json: [:], key: GuardKeys.alarm)
            }
            let intruder = try await herald.get("/v1/apps/com.example.intruder")
            #expect(intruder.status == .notFound)
        }
    }

    @Test("In POST /v1/push, an entry for another app gets its own 403 forbidden row; the key's own entry still goes out")
    func pushEntryForAnotherApp() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            try await herald.registerApp(GuardApps.weather, token: guardToken(2))
            let before = try await herald.snapshot()
            let reply = try await herald.post("/v1/push", json: ["notifications": [
                ["app": GuardApps.alarm, "tokens": [guardToken(1)], "aps": ["alert": "mine"]],
                ["app": GuardApps.weather, "tokens": [guardToken(2)], "aps": ["alert": "not mine"]],
                ["app": GuardApps.weather, "devices": [GuardApps.device], "aps": ["alert": "not mine either"]],
            ]], key: GuardKeys.alarm)
            #expect(reply.status == .ok, "\(reply.text)")
            let results = reply.json["results"].array ?? []
            let rows = Dictionary(grouping: results, by: { $0["notification"].int ?? -1 })
            #expect(rows[0]?.count == 1 && rows[0]?.first?["status"].int == 200, "\(reply.text)")
            for index in [1, 2] {
                #expect(rows[index]?.count == 1, "one row for entry \(index): \(reply.text)")
                #expect(rows[index]?.first?["status"].int == 403, "\(reply.text)")
                #expect(rows[index]?.first?["reason"].string == "forbidden", "\(reply.text)")
            }
            #expect(herald.inbox(guardToken(1)).count == 1)
            #expect(herald.inbox(guardToken(2)).isEmpty, "the other app's device got a push")
            let after = try await herald.snapshot()
            #expect(after == before)
        }
    }

    @Test("An app key cannot manage hooks or the feedback outbox: 403 forbidden, nothing changes")
    func appKeyOnAdminRoutes() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            let definition = HookFixture.definition()
            let created = try await herald.put("/v1/hooks/orders", json: definition)
            try #require(created.status == .created, "\(created.text)")
            var changed = definition
            changed["secrets"] = ["an-app-chosen-secret-0123456789"]
            for key in [GuardKeys.alarm, GuardKeys.weather] {
                try await herald.expectRefused(.forbidden, "forbidden", hooks: ["orders"]) {
                    try await herald.put("/v1/hooks/orders", json: changed, key: key)
                }
                try await herald.expectRefused(.forbidden, "forbidden", hooks: ["orders", "mine"]) {
                    try await herald.put("/v1/hooks/mine", json: changed, key: key)
                }
                try await herald.expectRefused(.forbidden, "forbidden", hooks: ["orders"]) {
                    try await herald.get("/v1/hooks/orders", key: key)
                }
                try await herald.expectRefused(.forbidden, "forbidden", hooks: ["orders"]) {
                    try await herald.delete("/v1/hooks/orders", key: key)
                }
                try await herald.expectRefused(.forbidden, "forbidden", hooks: ["orders"]) {
                    try await herald.get("/v1/feedback/outbox", key: key)
                }
                try await herald.expectRefused(.forbidden, "forbidden", hooks: ["orders"]) {
                    try await herald.send(.post, "/v1/feedback/outbox/1/retry", key: key)
                }
            }
        }
    }

    @Test("Without any key, the server refuses a non-loopback listen address, naming listen",
          arguments: ["0.0.0.0", "192.168.1.20", "::", "herald.example.com"])
    func noKeysMeansLoopbackOnly(host: String) async throws {
        let directory = TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(directory) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        configuration.listenHost = host
        configuration.listenPort = 0
        do {
            _ = try await HeraldServer(configuration: configuration)
            Issue.record("a server without keys accepted listen \(host)")
        } catch let error as ConfigurationError {
            #expect(error.key == "listen")
            #expect(error.description.contains(host))
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/herald.sqlite"),
                "a refused configuration still opened the database")
    }

    @Test("Without any key, loopback addresses are fine; with a key, any address is",
          arguments: [("127.0.0.1", false), ("localhost", false), ("::1", false), ("0.0.0.0", true)])
    func loopbackOrKeys(host: String, withKey: Bool) async throws {
        let directory = TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(directory) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        configuration.listenHost = host
        configuration.listenPort = 0
        if withKey { configuration.adminKeys = [GuardKeys.admin] }
        let server = try await HeraldServer(configuration: configuration)
        await server.gateway.shutdown()
    }

    @Test("Keys come from YAML (auth.adminKeys, auth.appKeys, auth.keysFile) and the environment, and all of them work")
    func keysFromConfiguration() async throws {
        let directory = TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(directory) }
        let keysFile = directory + "/keys"
        try """
            # operators
            admin file-admin-key-001
            app com.example.weather file-weather-key-001
            """.write(toFile: keysFile, atomically: true, encoding: .utf8)
        let yamlFile = directory + "/herald.yaml"
        try """
            auth:
              adminKeys: [yaml-admin-key-001]
              appKeys: "com.example.alarm=yaml-alarm-key-001"
              keysFile: \(keysFile)
            """.write(toFile: yamlFile, atomically: true, encoding: .utf8)
        var configuration = try ServerConfiguration.load(file: yamlFile, environment: [
            "HERALD_AUTH_ADMIN_KEYS": "env-admin-key-001,env-admin-key-002",
            "HERALD_AUTH_APP_KEYS": "com.example.weather=env-weather-key-001",
        ])
        #expect(Set(configuration.adminKeys) == ["yaml-admin-key-001", "file-admin-key-001", "env-admin-key-001",
                                                 "env-admin-key-002"])
        #expect(Set(configuration.appKeys.map { "\($0.app)=\($0.key)" }) == [
            "com.example.alarm=yaml-alarm-key-001", "com.example.weather=file-weather-key-001",
            "com.example.weather=env-weather-key-001",
        ])
        configuration.dataDirectory = directory + "/data"
        configuration.listenPort = 0
        let server = try await HeraldServer(configuration: configuration)
        try await Application(router: server.makeRouter()).test(.router) { client async throws in
            func status(_ method: HTTPRequest.Method, _ path: String, key: String?) async throws -> HTTPResponse.Status {
                var headers: HTTPFields = [:]
                if let key { headers[.authorization] = "Bearer \(key)" }
                let body: ByteBuffer? = method == .put ? ByteBuffer(string: "{}") : nil
                if body != nil { headers[.contentType] = "application/json" }
                return try await client.executeRequest(uri: path, method: method, headers: headers, body: body).status
            }
            for admin in ["yaml-admin-key-001", "file-admin-key-001", "env-admin-key-002"] {
                let outbox = try await status(.get, "/v1/feedback/outbox", key: admin)
                #expect(outbox == .ok, "admin key \(admin)")
            }
            let yamlApp = try await status(.put, "/v1/apps/com.example.alarm", key: "yaml-alarm-key-001")
            #expect(yamlApp == .created)
            let fileApp = try await status(.put, "/v1/apps/com.example.weather", key: "file-weather-key-001")
            #expect(fileApp == .created)
            let envApp = try await status(.get, "/v1/apps/com.example.weather", key: "env-weather-key-001")
            #expect(envApp == .ok)
            let crossApp = try await status(.get, "/v1/apps/com.example.alarm", key: "env-weather-key-001")
            #expect(crossApp == .forbidden)
            let appOnOutbox = try await status(.get, "/v1/feedback/outbox", key: "file-weather-key-001")
            #expect(appOnOutbox == .forbidden)
            let anonymous = try await status(.get, "/v1/apps/com.example.alarm", key: nil)
            #expect(anonymous == .unauthorized)
        }
        await server.gateway.shutdown()
    }
}
