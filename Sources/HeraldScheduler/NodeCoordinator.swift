import Foundation
import HeraldDelivery
import HeraldStorage
import Logging
import ServiceLifecycle

/// One node's part in a cluster sharing a PostgreSQL store (docs/several-nodes.md):
/// - arms the instants other nodes armed, heard by `LISTEN`, so every node wakes on time
///   without polling;
/// - renews its leases every third of a lease, and takes over firings whose node stopped
///   renewing (it died), handing them to its dispatcher;
/// - sweeps every `sweep` for the soonest pending instant, covering word lost while the
///   listener reconnected.
///
/// Listed first among the services, so it stops last: leases stay renewed while the dispatcher
/// drains at shutdown.
public struct NodeCoordinator: Service {
    private let store: any NodeStore
    private let engine: SchedulerEngine
    private let sweep: Duration
    private let logger: Logger
    private var health: LoopHealth { engine.health }

    public init(store: any NodeStore, engine: SchedulerEngine, sweep: Duration, logger: Logger) {
        self.store = store
        self.engine = engine
        self.sweep = sweep
        self.logger = logger
        engine.health.expect(.heartbeat, every: Double(max(1, store.leaseMilliseconds / 3)) / 1000)
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listen() }
                group.addTask { await renewAndTakeOver() }
                group.addTask { await sweepForLostWord() }
            }
        }
        // Stopped last, after the dispatcher drained: what it could not deliver is taken over at
        // the others' next heartbeat, without waiting out a lease.
        // Bounded: a stop must not wait on a store that does not answer.
        let store = self.store
        let leaving = Task { try await store.leave() }
        switch await outcome(of: leaving, within: Self.leaveTimeout) {
        case .finished(.success):
            break
        case .finished(.failure(let error)):
            logger.warning("could not leave the cluster; the other nodes take over after the lease",
                           metadata: ["error": "\(error)"])
        case .timedOut:
            leaving.cancel()
            logger.warning("could not leave the cluster in time; the other nodes take over after the lease")
        }
    }

    /// How long a stopping node tries to mark itself gone.
    static let leaveTimeout: Duration = .seconds(1)

    private func listen() async {
        while !Task.isCancelled {
            // Listening for a second without an error counts as a success.
            let settled = Task { [health] in
                guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                health.succeeded(.listener)
            }
            defer { settled.cancel() }
            do {
                try await store.listenForArming { [engine] instants in
                    await engine.arm(instants.map { TimerEntry(fireAt: $0, key: -1) })
                }
            } catch is CancellationError {
                return
            } catch {
                settled.cancel()
                health.failed(.listener)
                logger.warning("listening for other nodes' timers failed; reconnecting in 1 s",
                               metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
            // Word sent while the listener was down: the sweep's read covers it at once.
            await armEarliest()
        }
    }

    private func renewAndTakeOver() async {
        let interval = Duration.milliseconds(max(1, store.leaseMilliseconds / 3))
        while !Task.isCancelled {
            do {
                try await store.renewLeases()
                let (fired, orphaned) = try await store.takeOverExpiredFirings()
                health.succeeded(.heartbeat)
                if !fired.isEmpty || !orphaned.isEmpty {
                    logger.warning("took over firings from a node whose lease ran out",
                                   metadata: ["firings": "\(fired.count + orphaned.count)", "node": "\(store.nodeID)"])
                    await engine.dispatcher.takeOver(fired: fired, orphaned: orphaned)
                }
            } catch is CancellationError {
                return
            } catch {
                health.failed(.heartbeat)
                logger.error("renewing leases failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }

    private func sweepForLostWord() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: sweep)
            await armEarliest()
        }
    }

    private func armEarliest() async {
        do {
            if let earliest = try await store.earliestPendingFire() {
                await engine.arm([TimerEntry(fireAt: earliest, key: -1)])
            }
        } catch {
            logger.warning("sweeping for the soonest pending instant failed", metadata: ["error": "\(error)"])
        }
    }
}
