import Foundation

extension HeraldClient {
    /// Sends pushes now (`POST /v1/push`), each to tokens, devices or a channel, with a result
    /// per token, device or channel.
    ///
    /// Each entry is judged on its own: a bad entry gets refusal rows in the results and the
    /// good ones still go out. The request carries an `Idempotency-Key` (``idempotencyKey``,
    /// else a new UUID), the same on every retry, so a retried batch goes out once.
    ///
    /// - parameter pushes: The entries of the batch.
    /// - parameter idempotencyKey: The key identifying this call; nil: a new UUID.
    /// - returns: One result row per token or device, or one per channel; and whether the
    ///   server replayed the first answer to this idempotency key.
    /// - throws: ``HeraldError``: 413 `batchTooLarge`, 422 `missingField`, 409
    ///   `idempotencyKeyInProgress` (after retrying).
    ///
    /// ```swift
    /// let reply = try await client.push([Push(app: "com.example.alarm", devices: ["phone-1"],
    ///                                         aps: ["alert": ["body": "Hello"]])])
    /// let accepted = reply.results.filter(\.isAccepted).count
    /// ```
    @discardableResult
    public func push(_ pushes: [Push], idempotencyKey: String? = nil) async throws -> PushReply {
        struct Body: Encodable { var notifications: [Push] }
        struct Answer: Decodable { var results: [PushResult] }
        let (answer, replayed) = try await transport.sendReplayable(
            .init(method: "POST", path: "/v1/push", body: try Transport.encode(Body(notifications: pushes)),
                  idempotencyKey: Self.key(idempotencyKey)), as: Answer.self)
        return PushReply(results: answer.results, replayed: replayed)
    }

    /// Sends one push now: ``push(_:idempotencyKey:)`` with a batch of one.
    ///
    /// - parameter push: The push.
    /// - parameter idempotencyKey: The key identifying this call; nil: a new UUID.
    /// - returns: One result row per token or device, and whether the answer was replayed.
    /// - throws: ``HeraldError``.
    @discardableResult
    public func push(_ push: Push, idempotencyKey: String? = nil) async throws -> PushReply {
        try await self.push([push], idempotencyKey: idempotencyKey)
    }
}
