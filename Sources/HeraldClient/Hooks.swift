import Foundation

extension HeraldClient {
    /// Defines a signed inbound hook, or replaces it (`PUT /v1/hooks/{name}`, admin).
    ///
    /// - parameter name: The hook's name, in its URL.
    /// - parameter definition: Its app, secrets and push template.
    /// - returns: The hook as stored (secrets counted), and whether it was created.
    /// - throws: ``HeraldError``: 404 `appNotFound`, 422 `weakWebhookSecret`, `invalidTemplate`, `invalidPointer`...
    @discardableResult
    public func putHook(_ name: String, _ definition: HookDefinition) async throws -> Saved<Hook> {
        try await save("/v1/hooks/" + segment(name), body: definition, as: Hook.self)
    }

    /// Reads a hook (`GET /v1/hooks/{name}`, admin); its secrets are counted, never shown.
    ///
    /// - parameter name: The hook's name.
    /// - returns: The hook.
    /// - throws: ``HeraldError``: 404 `hookNotFound`.
    public func hook(_ name: String) async throws -> Hook {
        try await get("/v1/hooks/" + segment(name), as: Hook.self)
    }

    /// Deletes a hook (`DELETE /v1/hooks/{name}`, admin).
    ///
    /// - parameter name: The hook's name.
    /// - throws: ``HeraldError``: 404 `hookNotFound`.
    public func deleteHook(_ name: String) async throws {
        try await send("DELETE", "/v1/hooks/" + segment(name))
    }

    /// One page of the hooks (`GET /v1/hooks`, admin).
    ///
    /// - parameter limit: The most answered; nil: the server's default.
    /// - parameter cursor: The previous page's ``Page/nextCursor``; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``.
    public func hooks(limit: Int? = nil, cursor: String? = nil) async throws -> Page<Hook> {
        try await page("/v1/hooks", legacyKey: "hooks", limit: limit, cursor: cursor)
    }

    /// Every hook, page after page.
    ///
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the hooks; iterating it throws ``HeraldError``.
    public func allHooks(pageSize: Int? = nil) -> PageSequence<Hook> {
        PageSequence(pageSize: pageSize) { limit, cursor in try await self.hooks(limit: limit, cursor: cursor) }
    }

    /// Sends a signed hook request (`POST /v1/hooks/{name}`), as another system would, signing
    /// `body` with `secret` (see ``HookSignature``).
    ///
    /// The request carries an `Idempotency-Key` (``idempotencyKey``, else a new UUID), the same
    /// on every retry; with the signature's replay protection, a resend pushes once.
    ///
    /// - parameter name: The hook's name.
    /// - parameter body: The raw JSON body, signed exactly as sent.
    /// - parameter secret: One of the hook's secrets.
    /// - parameter timestamp: The signature's time; the server refuses one outside its tolerance.
    /// - parameter idempotencyKey: The key identifying this call; nil: a new UUID.
    /// - returns: Whether it pushed, with a result per token; ``HookReply/replayed`` for a replay.
    /// - throws: ``HeraldError``: 401 `invalidSignature`, `staleTimestamp`; 404 `hookNotFound`;
    ///   409 `idempotencyKeyInProgress`; 422 `templateFailed`...
    ///
    /// ```swift
    /// let body = Data(#"{"user": {"id": "phone-1"}, "order": {"id": 42, "status": "shipped"}}"#.utf8)
    /// let reply = try await client.sendHook("orders", body: body, secret: "a-secret-of-16-chars-or-more")
    /// ```
    @discardableResult
    public func sendHook(_ name: String, body: Data, secret: String, timestamp: Date = Date(),
                         idempotencyKey: String? = nil) async throws -> HookReply {
        try await sendHook(name, body: body, signature: HookSignature.header(secrets: [secret], timestamp: timestamp, body: body),
                           idempotencyKey: idempotencyKey)
    }

    /// Sends a hook request with a `Herald-Signature` header value made by the caller (or none,
    /// to see the refusal).
    ///
    /// - parameter name: The hook's name.
    /// - parameter body: The raw body, as signed.
    /// - parameter signature: The `Herald-Signature` value; nil sends none.
    /// - parameter idempotencyKey: The key identifying this call; nil: a new UUID.
    /// - returns: Whether it pushed, with a result per token.
    /// - throws: ``HeraldError``.
    @discardableResult
    public func sendHook(_ name: String, body: Data, signature: String?, idempotencyKey: String? = nil) async throws -> HookReply {
        var request = Transport.Request(method: "POST", path: "/v1/hooks/" + segment(name), body: body,
                                        idempotencyKey: Self.key(idempotencyKey))
        if let signature { request.headers[HookSignature.headerName] = signature }
        let reply = try await transport.send(request)
        var answer = try Transport.decode(HookReply.self, from: reply.body)
        answer.replayed = reply.header("Idempotent-Replayed") == "true"
        return answer
    }
}
