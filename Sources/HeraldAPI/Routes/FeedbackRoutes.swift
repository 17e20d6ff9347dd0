import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStorage
import Hummingbird

/// `GET /v1/feedback/outbox[?state=pending|delivered|parked]` and
/// `POST /v1/feedback/outbox/{id}/retry`: what the feedback webhooks are doing (admin only).
struct FeedbackRoutes {
    let store: any OutboxStore
    let dispatcher: FeedbackDispatcher?

    struct MessageResource: Encodable {
        var id: Int64
        var event: Int64
        var url: String
        var type: String
        var state: String
        var attempts: Int
        var nextAttemptAt: String
        var lastError: String?
    }

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/v1/feedback/outbox") { request, _ in
            var state: OutboxMessage.State?
            if let text = request.uri.queryParameters.get("state") {
                guard let parsed = OutboxMessage.State(rawValue: text) else {
                    throw HeraldError.badRequest("invalidState", "state must be pending, delivered or parked")
                }
                state = parsed
            }
            let messages = try await store.outboxMessages(state: state, limit: 1000).map { message in
                MessageResource(id: message.id, event: message.eventID, url: message.url, type: message.type,
                                state: message.state.rawValue, attempts: message.attempts,
                                nextAttemptAt: RFC3339.string(from: message.nextAttemptAt), lastError: message.lastError)
            }
            struct Body: Encodable {
                /// Some receiver's share of the outbox is full.
                var full: Bool
                /// The receivers whose share is full; the others are unaffected.
                var fullReceivers: [String]
                var messages: [MessageResource]
            }
            let full = await dispatcher?.fullReceivers.sorted() ?? []
            return try Response.json(Body(full: !full.isEmpty, fullReceivers: full, messages: messages))
        }
        router.post("/v1/feedback/outbox/:id/retry") { _, context in
            try await Self.retry(try context.parameters.decoded("id"), store: store, dispatcher: dispatcher)
        }
    }

    /// Queues a parked message again: 202, or 404 `messageNotFound` when no parked message has that id.
    static func retry(_ id: String, store: any OutboxStore, dispatcher: FeedbackDispatcher?) async throws -> Response {
        guard let id = Int64(id), try await store.retryOutboxMessage(id, now: Date()) else {
            throw HeraldError.notFound("messageNotFound", "no parked outbox message with that id")
        }
        dispatcher?.nudge()
        return Response(status: .accepted)
    }
}
