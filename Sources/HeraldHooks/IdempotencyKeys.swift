import Foundation
import HeraldStorage

/// The keys that make a resend safe: a signed hook's message and idempotency keys, and the API's
/// `Idempotency-Key`. The first request with a key claims it, and its answer is kept under it; a
/// resend gets that answer back instead of running again. Keys live in one table, per scope (a
/// hook's name, or the API caller and path).
public struct IdempotencyKeys: Sendable {
    private let store: any HookStore
    /// How long an answer is kept.
    public let retention: TimeInterval
    /// How long an unfinished claim holds before a resend may take it over.
    public let lease: TimeInterval

    public init(store: any HookStore, retention: TimeInterval, lease: TimeInterval) {
        self.store = store
        self.retention = retention
        self.lease = lease
    }

    /// What claiming a request's keys found.
    public enum Claim: Sendable, Equatable {
        /// None was seen before: every key is now this request's, until it completes or is released.
        case claimed
        /// The first request with one of the keys is still running.
        case inProgress
        /// The first request's answer.
        case answered(String)
    }

    /// Claims every key of one request at once.
    public func claim(_ keys: [String], scope: String, now: Date) async throws -> Claim {
        switch try await store.claimIdempotencyKeys(hook: scope, keys: keys, now: now, retention: retention, lease: lease) {
        case nil: return .claimed
        case .inProgress?: return .inProgress
        case .completed(let answer)?: return .answered(answer)
        }
    }

    /// Keeps `answer` under the claimed keys, in a task of its own, so a request cut short after
    /// its change still keeps it. With `persisting`, a failing store is tried again, with
    /// backoff, for half the lease: for answers whose loss would repeat work already done (pushes
    /// that went out).
    public func complete(_ keys: [String], scope: String, answer: String, persisting: Bool = false) async throws {
        let (store, lease) = (self.store, self.lease)
        try await Task {
            if persisting {
                try await retryingStoreCall(until: .now + .milliseconds(Int64(lease * 500))) {
                    try await store.completeIdempotencyKeys(hook: scope, keys: keys, response: answer)
                }
            } else {
                try await store.completeIdempotencyKeys(hook: scope, keys: keys, response: answer)
            }
        }.value
    }

    /// Frees a claim so a resend can run; in a task of its own, since storage refuses to start
    /// work for a cancelled task (a timed-out request is one).
    public func release(_ keys: [String], scope: String) async {
        let store = self.store
        await Task { try? await store.releaseIdempotencyKeys(hook: scope, keys: keys) }.value
    }
}
