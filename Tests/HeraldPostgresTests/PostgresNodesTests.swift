import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStorage
import HeraldTestSupport
import Logging
import Synchronization
import Testing

// Several nodes on one database (DESIGN.md, "Several nodes behave as one"): each node a store of
// its own, as separate `herald serve` processes have. Leases and fencing, shared limits, and word
// of armed timers between nodes.
@Suite("PostgreSQL: several nodes on one database", .serialized)
struct PostgresNodesTests {
    static let app = "com.example.nodes"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static var logger: Logger {
        var logger = Logger(label: "herald.test.nodes")
        logger.logLevel = .critical
        return logger
    }

    /// Opens `names.count` nodes on a fresh database with one app and `devices` devices.
    static func nodes(_ names: [String], on server: PostgresServer, database: String, devices: Int = 1,
                      leaseMilliseconds: Int64 = 5_000) async throws -> [PostgresStore] {
        try server.createDatabase(database)
        let location = try PostgresLocation(url: server.url(database: database))
        var stores: [PostgresStore] = []
        for name in names {
            stores.append(try await PostgresStore.open(location, nodeID: name, poolSize: 4,
                                                       leaseMilliseconds: leaseMilliseconds, dueClock: .caller,
                                                       logger: logger))
        }
        _ = try await stores[0].saveApp(App(id: app))
        for index in 0..<devices {
            _ = try await stores[0].saveDevice(Device(appID: app, id: "d\(index)", timeZone: "UTC"), now: start)
        }
        return stores
    }

    static let fixtures = StoreFixtures(app: app, start: start)

    static func close(_ stores: [PostgresStore]) async {
        for store in stores { await store.close() }
    }

    @Test("Three nodes claiming at once fire each occurrence exactly once (10 rounds)")
    func threeNodesFireOnce() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        for round in 0..<10 {
            let stores = try await Self.nodes(["a", "b", "c"], on: server, database: "once_\(round)", devices: 6)
            for index in 0..<600 {
                _ = try await stores[index % 3].schedule(Self.fixtures.oneShot("n\(index)", device: "d\(index % 6)",
                                                                      at: 10 + Double(index % 7) * 0.001), now: Self.start)
            }
            let fired = try await withThrowingTaskGroup(of: [FiredOccurrence].self) { group in
                for (offset, store) in stores.enumerated() {
                    group.addTask { try await Self.fixtures.claimAll(store, at: 10.01, limit: 11 + offset * 4) }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let ids = fired.map { "\($0.occurrence.deviceID)/\($0.occurrence.id)" }
            #expect(ids.count == 600, "round \(round): \(ids.count) fired")
            #expect(Set(ids).count == ids.count, "round \(round): an occurrence fired twice")
            await Self.close(stores)
        }
    }

    @Test("200 schedules for one device spread over 3 nodes leave exactly 128 (10 rounds)")
    func limitAcrossNodes() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        for round in 0..<10 {
            let stores = try await Self.nodes(["a", "b", "c"], on: server, database: "limit_\(round)")
            let refusals = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    let store = stores[index % 3]
                    group.addTask {
                        do {
                            _ = try await store.schedule(Self.fixtures.oneShot("n\(index)", at: 60 + Double(index)), now: Self.start)
                            return false
                        } catch let error as HeraldError where error.reason == .notificationLimitReached {
                            return true
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(try await stores[1].notifications(appID: Self.app, deviceID: "d0").count == 128, "round \(round)")
            #expect(refusals == 72, "round \(round): \(refusals) refused")
            await Self.close(stores)
        }
    }

    @Test("A dead node's firings are taken over once its lease runs out, by one node only (20 rounds)")
    func expiredLeaseTakenOver() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        for round in 0..<20 {
            let stores = try await Self.nodes(["a", "b", "c"], on: server, database: "lease_\(round)",
                                              leaseMilliseconds: 200)
            for index in 0..<30 { _ = try await stores[0].schedule(Self.fixtures.oneShot("n\(index)", at: 10), now: Self.start) }
            let claimed = try await Self.fixtures.claimAll(stores[0], at: 10)
            #expect(claimed.count == 30)
            // a is alive while it delivers: it heartbeats.
            try await stores[0].renewLeases()
            // Within the lease nobody else may take them.
            #expect(try await stores[1].takeOverExpiredFirings().fired.isEmpty, "round \(round)")
            // Node a dies: it renews nothing. Once the lease ends, b and c race to take over.
            try await Task.sleep(for: .milliseconds(300))
            // b and c are alive: they heartbeat.
            try await stores[1].renewLeases()
            try await stores[2].renewLeases()
            async let byB = stores[1].takeOverExpiredFirings()
            async let byC = stores[2].takeOverExpiredFirings()
            let taken = try await byB.fired + byC.fired
            #expect(taken.count == 30, "round \(round): \(taken.count) taken over")
            #expect(Set(taken.compactMap(\.logID)) == Set(claimed.compactMap(\.logID)), "round \(round)")
            await Self.close(stores)
        }
    }

    @Test("A node that stalled past its lease cannot store an outcome over the node that took its firings (20 rounds)")
    func stalledNodeIsFenced() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        for round in 0..<20 {
            let stores = try await Self.nodes(["a", "b"], on: server, database: "fence_\(round)", leaseMilliseconds: 200)
            for index in 0..<10 { _ = try await stores[0].schedule(Self.fixtures.oneShot("n\(index)", at: 10), now: Self.start) }
            let stalled = try await Self.fixtures.claimAll(stores[0], at: 10)
            try await Task.sleep(for: .milliseconds(300))
            let taken = try await stores[1].takeOverExpiredFirings().fired
            #expect(taken.count == 10)
            // a wakes up and reports; then b reports what it delivered.
            try await stores[0].completeDeliveries(stalled.map {
                CompletedDelivery(deliveryID: $0.logID!, channel: .push, outcome: .refused("stale"))
            })
            try await stores[1].completeDeliveries(taken.map {
                CompletedDelivery(deliveryID: $0.logID!, channel: .push, outcome: .delivered)
            })
            let outcomes = try await stores[0].deliveries(appID: Self.app, deviceID: "d0", limit: 100).map(\.outcome)
            #expect(outcomes.count == 10)
            #expect(outcomes.allSatisfy { $0 == .delivered }, "round \(round): \(outcomes)")
            await Self.close(stores)
        }
    }

    @Test("A node renewing its lease keeps its firings; nobody takes them over (10 rounds)")
    func renewedLeaseIsKept() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        for round in 0..<10 {
            let stores = try await Self.nodes(["a", "b"], on: server, database: "renew_\(round)", leaseMilliseconds: 300)
            for index in 0..<10 { _ = try await stores[0].schedule(Self.fixtures.oneShot("n\(index)", at: 10), now: Self.start) }
            _ = try await Self.fixtures.claimAll(stores[0], at: 10)
            try await Task.sleep(for: .milliseconds(400))
            try await stores[0].renewLeases()
            #expect(try await stores[1].takeOverExpiredFirings().fired.isEmpty, "round \(round)")
            await Self.close(stores)
        }
    }

    @Test("A schedule written on one node reaches the others' timers by LISTEN/NOTIFY, only once committed (10 rounds)")
    func armingReachesOtherNodes() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let stores = try await Self.nodes(["a", "b"], on: server, database: "arming")
        let heard = Mutex<[Int64]>([])
        let listener = Task {
            try await stores[1].listenForArming { instants in heard.withLock { $0 += instants } }
        }
        // The listener is up once a write made after it starts is heard.
        var ready = false
        for attempt in 0..<100 where !ready {
            _ = try await stores[0].schedule(Self.fixtures.oneShot("probe", at: Double(attempt)), now: Self.start)
            try await Task.sleep(for: .milliseconds(50))
            ready = !heard.withLock { $0 }.isEmpty
        }
        #expect(ready, "the listener never heard a write")
        for round in 0..<10 {
            heard.withLock { $0 = [] }
            let notification = Self.fixtures.oneShot("n\(round)", at: 1_000 + Double(round))
            _ = try await stores[0].schedule(notification, now: Self.start)
            // A refused write (a device that does not exist) announces nothing.
            await #expect(throws: HeraldError.self) {
                _ = try await stores[0].schedule(Self.fixtures.oneShot("x", device: "ghost", at: 5), now: Self.start)
            }
            let expected = notification.nextFireDate.millisecondsSince1970
            _ = await pollUntil(timeout: .seconds(1), interval: .milliseconds(10)) { heard.withLock { $0 }.contains(expected) }
            let got = heard.withLock { $0 }
            #expect(got == [expected], "round \(round): heard \(got)")
        }
        listener.cancel()
        _ = await listener.result
        await Self.close(stores)
    }
}
