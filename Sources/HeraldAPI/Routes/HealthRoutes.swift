import Foundation
import HeraldDelivery
import Hummingbird
import Prometheus

/// `/healthz` (the process answers), `/readyz` (the store answers, no loop is failing or stuck,
/// and writes are not being refused for a full disk) and `/metrics`.
struct HealthRoutes {
    let registry: PrometheusCollectorRegistry
    /// Whether the store answers: nil when it did within ``probeTimeout``, else what went wrong.
    let storeProblem: @Sendable () async -> String?
    let health: LoopHealth
    /// Whether writes were recently refused for a full disk.
    let fullness: StorageFullness
    /// Sets the gauges read from the store and the push engine, just before they are emitted.
    let refresh: @Sendable () async -> Void

    /// How long `/readyz` waits for the store to answer.
    static let probeTimeout: Duration = .seconds(2)

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/healthz") { _, _ in
            try Response.json(["status": "ok"])
        }
        router.get("/readyz") { _, _ in
            var problems: [String] = []
            if let failure = await storeProblem() { problems.append("store: \(failure)") }
            problems += health.problems()
            if let full = fullness.problem() { problems.append(full) }
            guard problems.isEmpty else {
                return try Response.json(["status": "unready", "problems": problems.joined(separator: "; ")],
                                         status: .serviceUnavailable)
            }
            return try Response.json(["status": "ready"])
        }
        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"],
                     body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
        router.get("/metrics") { _, _ in
            await refresh()
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(string: registry.emitToString())))
        }
    }
}
