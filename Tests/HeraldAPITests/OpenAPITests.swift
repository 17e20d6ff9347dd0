import Foundation
import Testing

@Suite("The API describes itself")
struct OpenAPITests {
    /// Every route the server registers, in OpenAPI's path syntax.
    static let routes = [
        "/healthz", "/readyz", "/metrics", "/openapi.yaml",
        "/v1/apps/{app}", "/v1/apps/{app}/devices/{device}",
        "/v1/apps/{app}/devices/{device}/notifications", "/v1/apps/{app}/devices/{device}/notifications/{id}",
        "/v1/apps/{app}/devices/{device}/present", "/v1/apps/{app}/devices/{device}/deliveries",
        "/v1/apps/{app}/devices/{device}/state", "/v1/apps/{app}/devices/{device}/wake",
        "/v1/apps/{app}/devices/{device}/events", "/v1/apps/{app}/devices/{device}/events/backlog",
        "/v1/apps/{app}/devices/{device}/events/stream", "/v1/push", "/v1/hooks/{name}",
        "/v1/feedback/outbox", "/v1/feedback/outbox/{id}/retry",
    ]

    @Test("GET /openapi.yaml is an OpenAPI 3.1 document that lists every route")
    func documentListsEveryRoute() async throws {
        try await withHerald { herald in
            let reply = try await herald.api.get("/openapi.yaml")
            #expect(reply.status == .ok)
            #expect(reply.text.hasPrefix("openapi: 3.1.0"))
            for route in Self.routes {
                #expect(reply.text.contains("\n  \(route):"), "\(route) is described")
            }
        }
    }
}
