import Foundation
import HeraldCore
import HeraldDelivery
import Hummingbird

/// `GET /v1/feedback/outbox[?state=pending|delivered|parked]` and
/// `POST /v1/feedback/outbox/{id}/retry`: what the feedback webhooks are doing (admin only).
struct FeedbackRoutes {
    let outbox: FeedbackOutbox
    /// Most messages a listing pages through (the outbox's default bound, `feedback.outboxLimit`).
    static let outboxScan = 10_000

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
            let pagination = try Pagination(request, defaultLimit: Pagination.maximumLimit)
            var state: OutboxMessage.State?
            if let text = request.uri.queryParameters.get("state") {
                guard let parsed = OutboxMessage.State(rawValue: text) else {
                    throw HeraldError.badRequest(.invalidState, "state must be pending, delivered or parked")
                }
                state = parsed
            }
            // Paged in memory over the outbox's first `outboxScan` messages by id; the key pads
            // the id so text order is id order.
            let all = try await outbox.messages(state: state, limit: Self.outboxScan)
            let page = pagination.page(of: all) { String(format: "%019lld", $0.id) }
            let messages = page.items.map { message in
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
                var items: [MessageResource]
                var nextCursor: String?

                enum CodingKeys: String, CodingKey { case full, fullReceivers, messages, items, nextCursor }

                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(full, forKey: .full)
                    try container.encode(fullReceivers, forKey: .fullReceivers)
                    try container.encode(messages, forKey: .messages)
                    try container.encode(items, forKey: .items)
                    try container.encode(nextCursor, forKey: .nextCursor)
                }
            }
            let full = await outbox.fullReceivers
            return try Response.json(Body(full: !full.isEmpty, fullReceivers: full, messages: messages, items: messages,
                                          nextCursor: page.nextKey.map(Pagination.cursor(forKey:))))
        }
        router.post("/v1/feedback/outbox/:id/retry") { _, context in
            try await Self.retry(try context.parameters.decoded("id"), in: outbox)
        }
    }

    /// Queues a parked message again: 202, or 404 `messageNotFound` when no parked message has that id.
    static func retry(_ id: String, in outbox: FeedbackOutbox) async throws -> Response {
        guard let id = Int64(id), try await outbox.retry(id) else {
            throw HeraldError.notFound(.messageNotFound, "no parked outbox message with that id")
        }
        return Response(status: .accepted)
    }
}
