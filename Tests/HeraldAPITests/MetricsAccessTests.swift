import Foundation
import HeraldAPI
import HeraldComposition
import Hummingbird
import Testing

// Metrics access: with API keys configured, `/metrics` needs an admin key or a metrics key
// (`auth.metricsKeys`), unless `metrics.public` opts out; without keys (loopback) it stays open.

@Suite("Metrics access")
struct MetricsAccessTests {
    static let metricsKey = "prometheus-scrape-key-4d5e6f"

    @Test("With keys configured, /metrics refuses no key (401) and an app key (403), and answers an admin or metrics key")
    func metricsNeedAKey() async throws {
        try await withGuardedHerald(options: GuardOptions(metricsKeys: [Self.metricsKey])) { herald in
            expectError(try await herald.get("/metrics", key: nil), status: .unauthorized, reason: "unauthorized")
            expectError(try await herald.get("/metrics", key: GuardKeys.alarm), status: .forbidden, reason: "forbidden")
            for key in [GuardKeys.admin, Self.metricsKey] {
                let reply = try await herald.get("/metrics", key: key)
                #expect(reply.status == .ok)
            }
        }
    }

    @Test("A metrics key reads /metrics and nothing else: every API route answers 403 forbidden")
    func metricsKeyReachesNothingElse() async throws {
        try await withGuardedHerald(options: GuardOptions(metricsKeys: [Self.metricsKey])) { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            for path in ["/v1/apps", "/v1/apps/\(GuardApps.alarm)", "/v1/apps/\(GuardApps.alarm)/devices", "/v1/hooks", "/v1/status"] {
                expectError(try await herald.get(path, key: Self.metricsKey), status: .forbidden, reason: "forbidden")
            }
            _ = try await herald.expectRefused(.forbidden, "forbidden") {
                try await herald.put("/v1/apps/com.example.new", json: [:], key: Self.metricsKey)
            }
            let health = try await herald.get("/healthz", key: Self.metricsKey)
            #expect(health.status == .ok)
        }
    }

    @Test("metrics.public: true opens /metrics to anyone while the API keeps its keys")
    func publicMetrics() async throws {
        try await withGuardedHerald(options: GuardOptions(metricsArePublic: true)) { herald in
            let open = try await herald.get("/metrics", key: nil)
            #expect(open.status == .ok)
            expectError(try await herald.get("/v1/apps", key: nil), status: .unauthorized, reason: "unauthorized")
        }
    }

    @Test("Without keys, /metrics stays open on loopback")
    func loopbackMetricsStayOpen() async throws {
        try await withGuardedHerald(options: GuardOptions(keys: false)) { herald in
            let reply = try await herald.get("/metrics", key: nil)
            #expect(reply.status == .ok)
        }
    }

    @Test("auth.metricsKeys and metrics.public come from YAML, HERALD_AUTH_METRICS_KEYS and HERALD_METRICS_PUBLIC")
    func configuration() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-metrics-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("herald.yaml")
        try "auth:\n  metricsKeys: [from-yaml]\nmetrics:\n  public: false\n".write(to: file, atomically: true, encoding: .utf8)
        let fromFile = try ServerConfiguration.load(file: file.path, environment: [:])
        #expect(fromFile.metricsKeys == ["from-yaml"])
        #expect(fromFile.metricsArePublic == false)
        let fromEnvironment = try ServerConfiguration.load(
            file: nil, environment: ["HERALD_AUTH_METRICS_KEYS": "one,two", "HERALD_METRICS_PUBLIC": "true"])
        #expect(fromEnvironment.metricsKeys == ["one", "two"])
        #expect(fromEnvironment.metricsArePublic)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(file: nil, environment: ["HERALD_METRICS_PUBLIC": "sometimes"])
        }
    }
}
