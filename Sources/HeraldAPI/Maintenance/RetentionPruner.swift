import Foundation
import HeraldDelivery
import HeraldScheduler
import HeraldStorage
import Logging
import ServiceLifecycle

/// Deletes history older than the retention settings (delivery records, feedback events and
/// delivered or parked outbox messages, hook idempotency and replay records), so that nothing
/// grows without end.
///
/// It runs off the firing path: at start, then every `interval`, in batches of `batchSize` rows
/// per transaction with a pause between batches, so the scheduler's writes never wait long.
public actor RetentionPruner: Service {
    private let store: any RetentionStore
    private let policy: RetentionPolicy
    private let clock: any SchedulerClock
    private let interval: Duration
    private let batchSize: Int
    private let logger: Logger
    private let health: LoopHealth

    public init(store: any RetentionStore, policy: RetentionPolicy, clock: any SchedulerClock,
                interval: Duration = .seconds(3600), batchSize: Int = 500, health: LoopHealth = LoopHealth(),
                logger: Logger = Logger(label: "herald.retention")) {
        self.store = store
        self.health = health
        self.policy = policy
        self.clock = clock
        self.interval = interval
        self.batchSize = batchSize
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let deleted = try await self.pruneOnce()
                    self.health.succeeded(.retention)
                    if deleted > 0 { self.logger.info("pruned expired history", metadata: ["rows": "\(deleted)"]) }
                } catch {
                    self.health.failed(.retention)
                    self.logger.error("pruning expired history failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: self.interval)
            }
        }
    }

    /// Prunes everything expired as of the clock's `now`, batch by batch. Returns the rows deleted.
    @discardableResult
    public func pruneOnce() async throws -> Int {
        var total = 0
        while !Task.isCancelled {
            let deleted = try await store.pruneExpired(now: clock.now(), policy: policy, batchSize: batchSize)
            total += deleted
            if deleted < batchSize { break }
            // Leave the writer to the scheduler between batches.
            try? await Task.sleep(for: .milliseconds(5))
        }
        return total
    }
}
