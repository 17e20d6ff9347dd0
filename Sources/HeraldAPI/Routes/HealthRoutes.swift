import Hummingbird
import Prometheus

/// `/healthz` (the process answers), `/readyz` (storage open, timers armed) and `/metrics`.
struct HealthRoutes {
    let registry: PrometheusCollectorRegistry
    /// Sets the gauges read from the store and the push engine, just before they are emitted.
    let refresh: @Sendable () async -> Void

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/healthz") { _, _ in
            try Response.json(["status": "ok"])
        }
        // The engine is loaded before the server starts listening, so answering means ready.
        router.get("/readyz") { _, _ in
            try Response.json(["status": "ready"])
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
