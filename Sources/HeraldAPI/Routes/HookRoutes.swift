import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHooks
import Hummingbird

/// Signed inbound webhooks: `POST /v1/hooks/{name}` turns another system's JSON into a push.
/// Definitions are managed with an admin key: `PUT`, `GET`, `DELETE /v1/hooks/{name}`, and listed
/// with `GET /v1/hooks`.
struct HookRoutes {
    let services: APIServices
    let hooks: HookDefinitions
    /// What a request whose signature holds turns into.
    let intake: HookIntake
    let defaultTolerance: Int

    /// How long an idempotency key or a signed message is remembered: at least the longest
    /// signature tolerance (``WebhookDefinition/maximumToleranceSeconds``), so no replay outlives it.
    static let idempotencyRetention = TimeInterval(max(24 * 3600, WebhookDefinition.maximumToleranceSeconds))

    func register(on router: Router<HeraldRequestContext>) {
        router.put("/v1/hooks/:name") { request, context in
            let name = try context.parameters.identifier("name")
            // The name comes from the path; the body may leave it out.
            guard case .object(var fields) = try await services.body.decode(JSONValue.self, from: request) else {
                throw HeraldError.badRequest(.invalidJSON, "the hook definition must be a JSON object")
            }
            fields["name"] = .string(name)
            let definition: WebhookDefinition
            do {
                definition = try JSONDecoder().decode(WebhookDefinition.self, from: JSONEncoder().encode(JSONValue.object(fields)))
            } catch let error as DecodingError {
                throw JSONBody.describe(error)
            }
            try definition.validate()
            _ = try await services.directory.existingApp(definition.app)
            let created = try await hooks.save(definition)
            return try Response.json(HookResource(definition), status: created ? .created : .ok)
        }
        router.get("/v1/hooks") { request, _ in
            let pagination = try Pagination(request)
            let page = try await hooks.list(after: pagination.after, limit: pagination.limit)
            return try Response.listing(page.map(HookResource.init))
        }
        router.get("/v1/hooks/:name") { _, context in
            try Response.json(HookResource(try await hooks.definition(named: try context.parameters.decoded("name"))))
        }
        router.delete("/v1/hooks/:name") { _, context in
            let name = try context.parameters.decoded("name")
            guard try await hooks.delete(named: name) else {
                throw HeraldError.notFound(.hookNotFound, "hook '\(name)' does not exist")
            }
            return Response(status: .noContent)
        }
        router.post("/v1/hooks/:name") { request, context in
            try await receive(request, name: try context.parameters.decoded("name"))
        }
    }

    /// Verifies one signed request and hands it to the intake (``HookIntake``). Every accepted
    /// request is remembered by its signed message and by its idempotency keys (the template's
    /// key from the signed body, and an `Idempotency-Key` header as one more key), so a replay or
    /// a resend pushes nothing and gets the first answer again with `Idempotent-Replayed: true`.
    private func receive(_ request: Request, name: String) async throws -> Response {
        let definition = try await hooks.definition(named: name)
        let raw = Array(try await services.body.bytes(of: request))
        let timestamp: Int
        do {
            timestamp = try WebhookSignature.verify(header: request.header(WebhookSignature.headerName),
                                                    body: raw, secrets: definition.secrets,
                                                    now: Int(services.clock.now().timeIntervalSince1970),
                                                    toleranceSeconds: definition.toleranceSeconds ?? defaultTolerance)
        } catch {
            throw APIError(status: .unauthorized, reason: Self.reason(error), message: Self.explain(error))
        }
        let body: JSONValue
        do {
            body = try JSONDecoder().decode(JSONValue.self, from: Data(raw))
        } catch {
            throw HeraldError.badRequest(.invalidJSON, "the hook body is not valid JSON")
        }
        let answer = try await intake.receive(body, definition: definition,
                                              messageKey: WebhookSignature.replayKey(timestamp: timestamp, body: raw),
                                              requestKey: request.header("Idempotency-Key"))
        let (text, replayed) = switch answer {
        case .answered(let text): (text, false)
        case .replayed(let first): (first, true)
        }
        var response = Response(status: .ok, headers: [.contentType: "application/json"],
                                body: .init(byteBuffer: ByteBuffer(string: text)))
        if replayed { response.headers.append(.init(name: .init("Idempotent-Replayed")!, value: "true")) }
        return response
    }

    static func reason(_ refusal: WebhookSignature.Refusal) -> Reason {
        switch refusal {
        case .missingSignature: return .missingSignature
        case .invalidSignatureHeader: return .invalidSignatureHeader
        case .invalidSignature: return .invalidSignature
        case .staleTimestamp: return .staleTimestamp
        @unknown default: return .invalidSignature
        }
    }

    static func explain(_ refusal: WebhookSignature.Refusal) -> String {
        switch refusal {
        case .missingSignature: return "the \(WebhookSignature.headerName) header is required"
        case .invalidSignatureHeader: return "\(WebhookSignature.headerName) must be t=<unix seconds>,v1=<hex>[,v1=<hex>]"
        case .invalidSignature: return "no v1 signature matches the body with this hook's secrets"
        case .staleTimestamp: return "the signature's timestamp is outside the allowed window (a replay?)"
        @unknown default: return "the signature was refused"
        }
    }
}

/// A hook definition as the API shows it: secrets are never echoed.
struct HookResource: Encodable {
    var name: String
    var app: String
    var secrets: Int
    var toleranceSeconds: Int?
    var template: PushTemplate

    init(_ definition: WebhookDefinition) {
        name = definition.name
        app = definition.app
        secrets = definition.secrets.count
        toleranceSeconds = definition.toleranceSeconds
        template = definition.template
    }
}
