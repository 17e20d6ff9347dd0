import Foundation
import HeraldCrypto
import HTTPTypes
import Hummingbird
import Testing

// A signed inbound hook as another system would use it: an order service POSTs its own JSON, and
// the hook's template turns "order.updated" events into an alert to the customer's device.

enum HookFixture {
    static let name = "orders"
    static let secret = "whsec-orders-0123456789abcdef"
    static let rotatedSecret = "whsec-orders-rotated-fedcba9876543210"
    static let token = guardToken(100)

    nonisolated(unsafe) static let template: [String: Any] = [
        "tokens": "/customer/deviceToken",
        "title": "Order {/order/id}",
        "body": "Your order is {/order/status}",
        "filter": ["pointer": "/type", "equals": "order.updated"],
    ]

    /// A hook definition as `PUT /v1/hooks/{name}` takes it.
    static func definition(app: String = GuardApps.alarm, secrets: [String] = [secret],
                           template: [String: Any] = template, toleranceSeconds: Int? = nil) -> [String: Any] {
        var fields: [String: Any] = ["app": app, "secrets": secrets, "template": template]
        if let toleranceSeconds { fields["toleranceSeconds"] = toleranceSeconds }
        return fields
    }

    /// The order service's event, as the exact bytes it sends.
    static func event(order: String = "o-1001", status: String? = "shipped", type: String = "order.updated",
                      token: String = token, eventID: String? = nil) -> Data {
        var orderFields: [String: Any] = ["id": order]
        if let status { orderFields["status"] = status }
        var fields: [String: Any] = ["type": type, "order": orderFields, "customer": ["deviceToken": token]]
        if let eventID { fields["eventId"] = eventID }
        return API.encode(fields)
    }
}

extension GuardedHerald {
    /// Defines (or replaces) a hook with the admin key, and requires that it was stored.
    func defineHook(_ name: String = HookFixture.name, _ definition: [String: Any] = HookFixture.definition(),
                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let reply = try await put("/v1/hooks/\(name)", json: definition)
        try #require(reply.status == .created || reply.status == .ok, "hook definition failed: \(reply.text)",
                     sourceLocation: sourceLocation)
    }

    /// The `Herald-Signature` value for `body`, signed at `timestamp` (the server's now by default).
    func signature(_ body: Data, secret: String = HookFixture.secret, at timestamp: Int? = nil) -> String {
        WebhookSignature.sign(secret: secret, timestamp: timestamp ?? now, body: Array(body))
    }

    /// POSTs `body` to a hook with the raw `Herald-Signature` value given (none when nil) and no
    /// API key unless one is asked for, as a sender on the internet would.
    func deliverHook(_ name: String = HookFixture.name, body: Data, signature: String?, idempotencyKey: String? = nil,
                     apiKey: String? = nil) async throws -> Reply {
        var headers: [String: String] = [:]
        if let signature { headers[WebhookSignature.headerName] = signature }
        if let idempotencyKey { headers["Idempotency-Key"] = idempotencyKey }
        return try await send(.post, "/v1/hooks/\(name)", body: body, key: apiKey, headers: headers)
    }

    /// POSTs `body` signed with `secret` at `timestamp` (the server's now by default).
    func sendSignedHook(_ name: String = HookFixture.name, body: Data, secret: String = HookFixture.secret,
                        at timestamp: Int? = nil, idempotencyKey: String? = nil) async throws -> Reply {
        try await deliverHook(name, body: body, signature: signature(body, secret: secret, at: timestamp),
                              idempotencyKey: idempotencyKey)
    }
}

/// A guarded server with the alarm app (its device holds ``HookFixture/token``) and the `orders`
/// hook defined.
@discardableResult
func withOrdersHook<Value: Sendable>(options: GuardOptions = .init(), definition: [String: Any] = HookFixture.definition(),
                                     _ body: @escaping @Sendable (GuardedHerald) async throws -> Value) async throws -> Value {
    nonisolated(unsafe) let definition = definition
    return try await withGuardedHerald(options: options) { herald in
        try await herald.registerApp(GuardApps.alarm, token: HookFixture.token)
        try await herald.defineHook(HookFixture.name, definition)
        return try await body(herald)
    }
}

extension Reply {
    /// `Idempotent-Replayed`, when present.
    var idempotentReplayed: String? { headers[HTTPField.Name("Idempotent-Replayed")!] }
}
