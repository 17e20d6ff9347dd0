import Foundation
import HeraldCore
import HeraldDelivery
import HeraldCrypto
import HeraldHooks
import HeraldPush
import Hummingbird

/// Signed inbound webhooks: `POST /v1/hooks/{name}` turns another system's JSON into a push.
/// Definitions are managed with an admin key: `PUT`, `GET`, `DELETE /v1/hooks/{name}`, and listed
/// with `GET /v1/hooks`.
struct HookRoutes {
    let services: APIServices
    let hooks: HookDefinitions
    /// A request's signed message and idempotency keys, kept ``idempotencyRetention``.
    let keys: IdempotencyKeys
    let gateway: PushGateway
    let defaultTolerance: Int
    /// The most tokens and devices one request's push may fan out to.
    let maxTokensPerRequest: Int

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

    /// Verifies, renders and sends one signed request. Every accepted request is remembered by its
    /// signed message and by its idempotency keys (the template's key from the signed body, and
    /// an `Idempotency-Key` header as one more key), so a replay or a resend pushes nothing and
    /// gets the first answer again with `Idempotent-Replayed: true`.
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
        let push = try definition.template.apply(to: body)
        if let push {
            let targets = push.tokens.count + push.devices.count
            guard targets <= maxTokensPerRequest else {
                throw HeraldError(.tooLarge, reason: .tooManyTokens,
                                  message: "the hook's push names \(targets) tokens and devices; hooks.maxTokensPerRequest is \(maxTokensPerRequest)")
            }
            // The payload is the same for every token: refuse it once, before anything is claimed.
            if let liveActivity = push.liveActivity {
                _ = try liveActivity.validated(for: push.channel == nil ? .device : .channel).checkedPayload(custom: push.data)
            } else {
                _ = try APNsPush.checkedPayload(type: push.type, aps: push.aps, custom: push.data)
            }
        }
        var keys = ["signature:" + WebhookSignature.replayKey(timestamp: timestamp, body: raw)]
        // The signed body's key comes first: an unsigned header can add a key, never replace it.
        keys += [push?.idempotencyKey, request.header("Idempotency-Key")].compactMap { $0.map { "key:" + $0 } }
        switch try await self.keys.claim(keys, scope: name, now: services.clock.now()) {
        case .answered(let first):
            var response = Response(status: .ok, headers: [.contentType: "application/json"],
                                    body: .init(byteBuffer: ByteBuffer(string: first)))
            response.headers.append(.init(name: .init("Idempotent-Replayed")!, value: "true"))
            return response
        case .inProgress:
            throw HeraldError(.conflict, reason: .idempotencyKeyInProgress,
                              message: "a request with this signature or idempotency key is still being handled")
        case .claimed:
            break
        }
        var reply = HookReply(pushed: false, filtered: true, results: [])
        if let push {
            do {
                let app = try await services.directory.existingApp(definition.app)
                let sender = PushSender(audiences: services.directory, gateway: gateway)
                if let liveActivity = push.liveActivity {
                    let target = LiveActivityTarget(tokens: push.channel == nil && !push.tokens.isEmpty ? push.tokens : nil,
                                                    devices: push.channel == nil && push.tokens.isEmpty ? push.devices : nil,
                                                    channel: push.channel)
                    let results = await sender.sendLiveActivity(liveActivity, app: app, to: target,
                                                                options: LiveActivitySendOptions(collapseID: push.collapseID, data: push.data),
                                                                index: 0)
                    reply = HookReply(pushed: true, filtered: false, results: results)
                } else {
                let channel = Swift.Result { () throws(HeraldError) -> ChannelPush in
                    try ChannelPush(type: push.type, aps: push.aps, custom: push.data, collapseID: push.collapseID)
                }
                let results = await sender.send(app: app, type: push.type, tokens: push.tokens, devices: push.devices,
                                                index: 0, channel: channel) { token throws(HeraldError) in
                    try APNsPush(token: token, type: push.type, bundleID: app.id, collapseID: push.collapseID,
                                 aps: push.aps, custom: push.data)
                }
                reply = HookReply(pushed: true, filtered: false, results: results)
                }
            } catch {
                await self.keys.release(keys, scope: name)
                throw error
            }
            // Cut short (the request timed out) before any push was accepted: free the keys so a
            // resend can deliver. Once something reached APNs, the keys keep the answer.
            if Task.isCancelled, !reply.results.contains(where: { $0.status == 200 }) {
                await self.keys.release(keys, scope: name)
                throw CancellationError()
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(reply), as: UTF8.self)
        // The pushes went out: were the answer lost, a resend after the claim's lease would push again.
        try await self.keys.complete(keys, scope: name, answer: text, persisting: true)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
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
