import Foundation
import HeraldCore
import HeraldCrypto
import HeraldPush
import HeraldStorage
import Hummingbird

/// Signed inbound webhooks: `POST /v1/hooks/{name}` turns another system's JSON into a push.
/// Definitions are managed with an admin key: `PUT`, `GET`, `DELETE /v1/hooks/{name}`.
struct HookRoutes {
    let services: APIServices
    let store: SQLiteStore
    let gateway: PushGateway
    let defaultTolerance: Int
    /// How long an unfinished claim on an idempotency key holds: beyond any request's timeout.
    let claimLease: TimeInterval

    /// How long an idempotency key is remembered.
    static let idempotencyRetention: TimeInterval = 24 * 3600

    func register(on router: Router<HeraldRequestContext>) {
        router.put("/v1/hooks/:name") { request, context in
            let name = try context.parameters.identifier("name")
            // The name comes from the path; the body may leave it out.
            guard case .object(var fields) = try await services.body.decode(JSONValue.self, from: request) else {
                throw HeraldError.badRequest("invalidJSON", "the hook definition must be a JSON object")
            }
            fields["name"] = .string(name)
            let definition: WebhookDefinition
            do {
                definition = try JSONDecoder().decode(WebhookDefinition.self, from: JSONEncoder().encode(JSONValue.object(fields)))
            } catch let error as DecodingError {
                throw JSONBody.describe(error)
            }
            try definition.validate()
            _ = try await services.existingApp(definition.app)
            let created = try await store.saveHook(name: name, definition: try Self.encode(definition))
            return try Response.json(HookResource(definition), status: created ? .created : .ok)
        }
        router.get("/v1/hooks/:name") { _, context in
            try Response.json(HookResource(try await definition(named: try context.parameters.require("name"))))
        }
        router.delete("/v1/hooks/:name") { _, context in
            let name = try context.parameters.require("name")
            guard try await store.deleteHook(name: name) else {
                throw HeraldError.notFound("hookNotFound", "hook '\(name)' does not exist")
            }
            return Response(status: .noContent)
        }
        router.post("/v1/hooks/:name") { request, context in
            try await receive(request, name: try context.parameters.require("name"))
        }
    }

    private func receive(_ request: Request, name: String) async throws -> Response {
        let definition = try await definition(named: name)
        let raw = try await services.body.bytes(of: request)
        do {
            try WebhookSignature.verify(header: Self.header(WebhookSignature.headerName, in: request),
                                        body: Array(raw), secrets: definition.secrets,
                                        now: Int(services.clock.now().timeIntervalSince1970),
                                        toleranceSeconds: definition.toleranceSeconds ?? defaultTolerance)
        } catch let refusal as WebhookSignature.Refusal {
            throw APIError(status: .unauthorized, reason: refusal.rawValue, message: Self.explain(refusal))
        }
        let body: JSONValue
        do {
            body = try JSONDecoder().decode(JSONValue.self, from: raw)
        } catch {
            throw HeraldError.badRequest("invalidJSON", "the hook body is not valid JSON")
        }
        guard let push = try definition.template.apply(to: body) else {
            return try Response.json(HookReply(pushed: false, filtered: true, results: []))
        }
        let idempotencyKey = Self.header("Idempotency-Key", in: request) ?? push.idempotencyKey
        if let idempotencyKey {
            switch try await store.claimIdempotencyKey(hook: name, key: idempotencyKey, now: services.clock.now(),
                                                       retention: Self.idempotencyRetention, lease: claimLease) {
            case .completed(let first)?:
                var response = Response(status: .ok, headers: [.contentType: "application/json"],
                                        body: .init(byteBuffer: ByteBuffer(string: first)))
                response.headers.append(.init(name: .init("Idempotent-Replayed")!, value: "true"))
                return response
            case .inProgress?:
                throw HeraldError(.conflict, reason: "idempotencyKeyInProgress",
                                  message: "a request with this idempotency key is still being handled")
            case nil:
                break
            }
        }
        let results: [PushSender.Result]
        do {
            let app = try await services.existingApp(definition.app)
            let sender = PushSender(services: services, gateway: gateway)
            results = await sender.send(app: app, type: push.type, tokens: push.tokens, devices: push.devices, index: 0) {
                token throws(HeraldError) in
                try APNsPush(token: token, type: push.type, bundleID: app.id, collapseID: push.collapseID, aps: push.aps,
                             custom: push.data)
            }
        } catch {
            if let idempotencyKey { await release(idempotencyKey, hook: name) }
            throw error
        }
        let reply = HookReply(pushed: true, filtered: false, results: results)
        let response = try Response.json(reply)
        // Cut short (the request timed out) before any push was accepted: free the key so a
        // resend can deliver. Once something reached APNs, the key keeps the answer.
        if Task.isCancelled, let idempotencyKey, !results.contains(where: { $0.status == 200 }) {
            await release(idempotencyKey, hook: name)
            throw CancellationError()
        }
        if let idempotencyKey {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try await store.completeIdempotencyKey(hook: name, key: idempotencyKey,
                                                   response: String(decoding: try encoder.encode(reply), as: UTF8.self))
        }
        return response
    }

    /// Frees a claim so a resend can deliver; in a task of its own, since storage refuses to
    /// start work for a cancelled task (a timed-out request is one).
    private func release(_ key: String, hook: String) async {
        let store = self.store
        await Task { try? await store.releaseIdempotencyKey(hook: hook, key: key) }.value
    }

    /// A request header by name, case-insensitively.
    static func header(_ name: String, in request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == name.lowercased() }?.value
    }

    private func definition(named name: String) async throws -> WebhookDefinition {
        guard let text = try await store.hook(name: name) else {
            throw HeraldError.notFound("hookNotFound", "hook '\(name)' does not exist")
        }
        return try JSONDecoder().decode(WebhookDefinition.self, from: Data(text.utf8))
    }

    static func encode(_ definition: WebhookDefinition) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(definition), as: UTF8.self)
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

/// The answer to an inbound hook.
struct HookReply: Encodable {
    var pushed: Bool
    var filtered: Bool
    var results: [PushSender.Result]
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
