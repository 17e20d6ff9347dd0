import Foundation
import HeraldCore
import HeraldPostgres
import HeraldScheduler
import HeraldStorage
import HeraldTestSupport
import Logging
import Synchronization
import Testing

// The claim as two statements (read, then write) and the inbox without a foreign key: the rules
// they must keep (DESIGN.md, "A claim, not a read then a write"; "Leases are fenced and on one
// clock").
@Suite("PostgreSQL: the claim's statements keep the firing rules", .serialized)
struct PostgresClaimTests {
    static let app = "com.example.claim"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let fixtures = StoreFixtures(app: app, start: start)

    static var logger: Logger {
        var logger = Logger(label: "herald.test.claim")
        logger.logLevel = .critical
        return logger
    }

    /// A node on a fresh database with one app and devices d0 and d1.
    static func node(_ name: String = "node-a", on server: PostgresServer, database: String, create: Bool = true,
                     dueClock: PostgresStore.DueClock = .caller) async throws -> PostgresStore {
        if create { try server.createDatabase(database) }
        let store = try await PostgresStore.open(try PostgresLocation(url: server.url(database: database)), nodeID: name,
                                                 poolSize: 4, dueClock: dueClock, logger: logger)
        if create {
            _ = try await store.saveApp(App(id: app))
            for device in ["d0", "d1"] {
                _ = try await store.saveDevice(Device(appID: app, id: device, timeZone: "UTC"), now: start)
            }
        }
        return store
    }

    static func everyMinute(_ id: String, at offset: TimeInterval) -> LocalNotification {
        var notification = fixtures.oneShot(id, at: offset)
        notification.repeatRule = RepeatRule(unit: .minute)
        return notification
    }

    static func claim(_ store: PostgresStore, until: Date, firedAt: Date) async throws -> FiringClaim {
        try await store.claimDue(until: until, firedAt: firedAt, limit: 50) { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: firedAt, lateAfter: 1)
        }
    }

    @Test("A node whose clock runs 2 s ahead of the database's claims nothing early, and is told when to look again")
    func clockAhead() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let store = try await Self.node(on: server, database: "ahead", dueClock: .database)
        // Due in 2 s by the database's clock (the same machine's); the node believes it is due now.
        let due = Date().addingTimeInterval(2)
        var notification = Self.fixtures.oneShot("soon", at: 0)
        notification.fireDate = .instant(due)
        notification.nextFireDate = due
        _ = try await store.schedule(notification, now: Date())
        let early = try await Self.claim(store, until: due, firedAt: due)
        #expect(early.fired.isEmpty)
        #expect(try server.query("SELECT count(*) FROM notification", database: "ahead") == [["1"]])
        // When the database's clock reaches the instant, by this node's clock: about 2 s after it.
        let lookAgain = try #require(early.armed.first { $0.key == -1 })
        let ahead = lookAgain.fireAt - due.millisecondsSince1970
        #expect(ahead > 1_500 && ahead < 2_500, "look again \(ahead) ms after the node's instant")

        try await Task.sleep(for: .milliseconds(max(0, Int(due.timeIntervalSinceNow * 1000)) + 50))
        let now = Date()
        let fired = try await Self.claim(store, until: now, firedAt: now)
        #expect(fired.fired.map(\.occurrence.id) == ["soon#0"])
        #expect(try server.query("SELECT count(*) FROM notification", database: "ahead") == [["0"]])
        await store.close()
    }

    static func claim(_ store: PostgresStore, from: Date, until: Date, firedAt: Date) async throws -> FiringClaim {
        try await store.claimDue(from: from, until: until, firedAt: firedAt, limit: 50, holding: nil) { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: firedAt, lateAfter: 1)
        }
    }

    @Test("A claim scans from its floor: what is due below it waits for a claim from lower (the sweep's), and is not lost")
    func claimScansFromItsFloor() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let store = try await Self.node(on: server, database: "floor")
        _ = try await store.schedule(Self.fixtures.oneShot("below", at: 10), now: Self.start)
        _ = try await store.schedule(Self.fixtures.oneShot("above", at: 20), now: Self.start)
        let at = Self.start.addingTimeInterval(20)
        let fromFloor = try await Self.claim(store, from: Self.start.addingTimeInterval(15), until: at, firedAt: at)
        #expect(fromFloor.fired.map(\.occurrence.id) == ["above#0"])
        #expect(try server.query("SELECT id FROM notification", database: "floor") == [["below"]])
        let fromBelow = try await Self.claim(store, from: Self.start.addingTimeInterval(10), until: at, firedAt: at)
        #expect(fromBelow.fired.map(\.occurrence.id) == ["below#0"])
        await store.close()
    }

    @Test("A node whose clock runs ahead scans from its floor less the difference: its entries for rows found early are on its clock")
    func floorWidenedByAClockAhead() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let store = try await Self.node(on: server, database: "floorahead", dueClock: .database)
        let due = Date().addingTimeInterval(-1)
        var notification = Self.fixtures.oneShot("due", at: 0)
        notification.fireDate = .instant(due)
        notification.nextFireDate = due
        _ = try await store.schedule(notification, now: due.addingTimeInterval(-10))
        // 5 s ahead: this node armed the row's instant as due + 5 s on its own clock.
        let nodeNow = Date().addingTimeInterval(5)
        let claim = try await Self.claim(store, from: due.addingTimeInterval(4), until: nodeNow, firedAt: nodeNow)
        #expect(claim.fired.map(\.occurrence.id) == ["due#0"])
        await store.close()
    }

    @Test("A claim that advances a repeating notification tells the other nodes its next instant")
    func claimAnnouncesAdvances() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let a = try await Self.node(on: server, database: "announce")
        let b = try await Self.node("node-b", on: server, database: "announce", create: false)
        let heard = Mutex<[Int64]>([])
        let listener = Task { try await b.listenForArming { instants in heard.withLock { $0 += instants } } }
        var ready = false
        for attempt in 0..<100 where !ready {
            _ = try await a.schedule(Self.fixtures.oneShot("probe-\(attempt)", device: "d1", at: 86_400 + Double(attempt)),
                                     now: Self.start)
            try await Task.sleep(for: .milliseconds(50))
            ready = !heard.withLock { $0 }.isEmpty
        }
        #expect(ready, "the listener never heard a write")
        _ = try await a.schedule(Self.everyMinute("tick", at: 10), now: Self.start)
        try await Task.sleep(for: .milliseconds(100))
        heard.withLock { $0 = [] }

        let at = Self.start.addingTimeInterval(10)
        let claim = try await Self.claim(a, until: at, firedAt: at)
        #expect(claim.fired.map(\.occurrence.id) == ["tick#0"])
        let next = at.addingTimeInterval(60).millisecondsSince1970
        #expect(claim.armed.map(\.fireAt) == [next])
        _ = await pollUntil(timeout: .seconds(1), interval: .milliseconds(10)) { heard.withLock { $0 }.contains(next) }
        let got = heard.withLock { $0 }
        #expect(got == [next])
        listener.cancel()
        _ = await listener.result
        await a.close()
        await b.close()
    }

    @Test("A claim is two statements that commit by themselves: its read and its write, no BEGIN or COMMIT")
    func claimIsTwoStatements() async throws {
        let server = try PostgresServer.start(settings: [("shared_preload_libraries", "pg_stat_statements")])
        defer { server.stop() }
        let store = try await Self.node(on: server, database: "trips")
        _ = try server.query("CREATE EXTENSION pg_stat_statements", database: "trips")
        for index in 0..<20 { _ = try await store.schedule(Self.fixtures.oneShot("n\(index)", at: 10), now: Self.start) }
        let at = Self.start.addingTimeInterval(10)
        _ = try server.query("SELECT pg_stat_statements_reset()", database: "trips")
        #expect(try await Self.claim(store, until: at, firedAt: at).fired.count == 20)
        let calls = try server.query("""
            SELECT CASE WHEN query ILIKE 'BEGIN%' OR query ILIKE 'START TRANSACTION%' THEN 'begin'
                        WHEN query ILIKE 'COMMIT%' OR query ILIKE 'END%' THEN 'commit'
                        WHEN query LIKE '%FROM notification n%' AND query NOT LIKE '%taken AS%' THEN 'read'
                        WHEN query LIKE '%taken AS%' THEN 'write' END AS kind, sum(calls)
            FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
            WHERE d.datname = 'trips' AND query NOT LIKE '%pg_stat_statements%'
            GROUP BY 1 ORDER BY 1
            """, database: "trips")
        #expect(calls == [["read", "1"], ["write", "1"]])
        await store.close()
    }

    @Test("A row replaced between a claim's read and its write is not taken by that claim: it fires once, as replaced, on a later look")
    func rowChangedAfterReadIsNotTaken() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let store = try await Self.node(on: server, database: "moved")
        _ = try await store.schedule(Self.fixtures.oneShot("n", at: 10), now: Self.start)
        let at = Self.start.addingTimeInterval(10)
        // Between the read and the write (decide runs there): a replace commits, bumping the revision.
        let claim = try await store.claimDue(until: at, firedAt: at, limit: 50) { due in
            _ = try? server.query("""
                UPDATE notification SET revision = revision + 1, content = replace(content, '"body":"n"', '"body":"N"')
                """, database: "moved")
            return due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
        }
        #expect(claim.fired.isEmpty && claim.heldInInbox.isEmpty)
        #expect(claim.armed.contains { $0.key == -1 && $0.fireAt > at.millisecondsSince1970 }, "it looks again soon")
        #expect(try server.query("SELECT count(*) FROM delivery", database: "moved") == [["0"]])
        #expect(try server.query("SELECT count(*) FROM notification", database: "moved") == [["1"]], "still pending")
        try await Task.sleep(for: .milliseconds(300))
        let later = try await Self.claim(store, until: at, firedAt: at)
        #expect(later.fired.map(\.occurrence.id) == ["n#0"])
        #expect(try later.fired.first?.content().alert?.body == "N", "as replaced")
        #expect(try server.query("SELECT count(*) FROM delivery", database: "moved") == [["1"]])
        await store.close()
    }

    @Test("The fire log refuses a second firing of an occurrence, even when its notification comes due again for it")
    func secondFiringRefused() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let store = try await Self.node(on: server, database: "twice")
        _ = try await store.schedule(Self.everyMinute("tick", at: 10), now: Self.start)
        let at = Self.start.addingTimeInterval(10)
        #expect(try await Self.claim(store, until: at, firedAt: at).fired.map(\.occurrence.id) == ["tick#0"])
        // As if the advance were lost: occurrence 0 is due again.
        _ = try server.query("UPDATE notification SET next_index = 0, next_fire_at = \(at.millisecondsSince1970)",
                             database: "twice")
        let again = try await Self.claim(store, until: at, firedAt: at)
        #expect(again.fired.isEmpty)
        #expect(try server.query("SELECT count(*) FROM delivery", database: "twice") == [["1"]])
        #expect(try server.query("SELECT next_index FROM notification", database: "twice") == [["1"]])
        await store.close()
    }

    @Test("A claim holds in its inbox a firing whose device row it can lock at once; one whose device is busy is left to the dispatcher, not waited for")
    func claimHoldsOnlyWhatItCanLockAtOnce() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let store = try await Self.node(on: server, database: "busy")
        for device in ["d0", "d1"] {
            _ = try await store.schedule(Self.fixtures.oneShot("n-\(device)", device: device, at: 10), now: Self.start)
        }
        // Another session (a wake, say) holds d0's row for 3 s.
        let busy = Task.detached {
            try server.query("""
                BEGIN; SELECT 1 FROM device WHERE id = 'd0' FOR NO KEY UPDATE; SELECT pg_sleep(3); COMMIT;
                """, database: "busy")
        }
        let locked = await pollUntil(timeout: .seconds(5), interval: .milliseconds(20)) {
            (try? server.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'", database: "busy"))
                == [["1"]]
        }
        #expect(locked, "the other session never took the lock")
        let at = Self.start.addingTimeInterval(10)
        let began = ContinuousClock.now
        let claim = try await store.claimDue(until: at, firedAt: at, limit: 50, holding: InboxOnlyRule { _, _ in true }) { due in
            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
        }
        #expect(ContinuousClock.now - began < .seconds(2), "the claim waited for the busy device")
        #expect(claim.heldInInbox.map(\.occurrence.id) == ["n-d1#0"])
        #expect(claim.fired.map(\.occurrence.id) == ["n-d0#0"])
        #expect(try server.query("SELECT device_id, outcome FROM delivery ORDER BY device_id", database: "busy")
                == [["d0", "pending"], ["d1", CompletedDelivery.heldOutcome]])
        _ = try await busy.value
        // The dispatcher holds the other once the device is free, under a higher id.
        let heldID = try #require(try await store.handedOver(appID: Self.app, deviceID: "d1", after: 0).inbox.first?.sequence)
        let fired = claim.fired[0]
        let item = InboxItem(logID: fired.logID, occurrence: fired.occurrence, content: try fired.content(), firedAt: fired.firedAt)
        let laterID = try #require(try await store.holdInInbox([item]).first ?? nil)
        #expect(laterID > heldID)
        await store.close()
    }

    @Test("Two claims of one node in flight together take disjoint rows and write in turn: every firing is held, none left to the dispatcher (10 rounds)")
    func claimsInFlightWriteInTurn() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        for round in 1...10 {
            let store = try await Self.node(on: server, database: "turns\(round)")
            for index in 0..<60 {
                _ = try await store.schedule(Self.fixtures.oneShot("n\(index)", device: "d\(index % 2)", at: 10), now: Self.start)
            }
            let at = Self.start.addingTimeInterval(10)
            let claims = try await withThrowingTaskGroup(of: FiringClaim.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        try await store.claimDue(until: at, firedAt: at, limit: 30, holding: InboxOnlyRule { _, _ in true }) { due in
                            due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let held = claims.flatMap(\.heldInInbox).map(\.occurrence.id)
            #expect(held.count == 60 && Set(held).count == 60, "round \(round): held \(held.count)")
            #expect(claims.flatMap(\.fired).count == 0, "round \(round): a write skipped the other's devices")
            #expect(try server.query("SELECT count(*) FROM delivery WHERE outcome = 'pending'", database: "turns\(round)")
                    == [["0"]])
            await store.close()
        }
    }

    @Test("A backlog bigger than one claim is fired by claims in flight together: each occurrence once, held in its inbox (5 rounds)")
    func engineWorksThroughBacklog() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        for round in 1...5 {
            let store = try await Self.node(on: server, database: "backlog\(round)")
            for index in 0..<150 {
                _ = try await store.schedule(Self.fixtures.oneShot("n\(index)", device: "d\(index % 2)", at: 10), now: Self.start)
            }
            let clock = ManualClock(now: Self.start)
            let channel = CapturingChannel(holding: InboxOnlyRule { _, _ in true })
            let engine = SchedulerEngine(store: store, channel: channel, clock: clock,
                                         configuration: .init(maximumBatch: 20))
            try await engine.load()
            let running = Task { try await engine.run() }
            clock.advance(to: Self.start.addingTimeInterval(10))
            let done = await pollUntil(timeout: .seconds(20), interval: .milliseconds(20)) {
                (try? server.query("SELECT count(*) FROM notification", database: "backlog\(round)")) == [["0"]]
            }
            running.cancel()
            _ = try? await running.value
            #expect(done, "round \(round): the backlog was not worked through")
            #expect(try server.query("""
                SELECT count(*), count(DISTINCT occurrence_id), count(*) FILTER (WHERE outcome = 'pending') FROM delivery
                """, database: "backlog\(round)") == [["150", "150", "0"]])
            #expect(channel.occurrences.count == 0, "round \(round): a claim left firings to the dispatcher")
            await store.close()
        }
    }

    @Test("Deleting a device, or its app, removes the device's inbox items; the other devices keep theirs")
    func inboxGoesWithItsDevice() async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let store = try await Self.node(on: server, database: "gone")
        _ = try await store.saveApp(App(id: "com.example.other"))
        _ = try await store.saveDevice(Device(appID: "com.example.other", id: "d0", timeZone: "UTC"), now: Self.start)
        let items = [(Self.app, "d0"), (Self.app, "d1"), ("com.example.other", "d0")].map { app, device in
            InboxItem(occurrence: Occurrence(appID: app, deviceID: device, notificationID: "n", index: 0,
                                             scheduledFor: Self.start, late: false, missed: 0),
                      content: NotificationContent(alert: .init(body: "hi")), firedAt: Self.start)
        }
        #expect(try await store.holdInInbox(items).allSatisfy { $0 != nil })
        #expect(try await store.deleteDevice(appID: Self.app, id: "d0"))
        let left = """
            SELECT app_id || '/' || device_id FROM delivery WHERE inbox_seq IS NOT NULL AND NOT inbox_acknowledged ORDER BY 1
            """
        #expect(try server.query(left, database: "gone") == [["\(Self.app)/d1"], ["com.example.other/d0"]])
        #expect(try await store.deleteApp(id: "com.example.other"))
        #expect(try server.query(left, database: "gone") == [["\(Self.app)/d1"]])
        // A device that is gone has nobody to hold anything for.
        #expect(try await store.holdInInbox([items[0]]) == [nil])
        await store.close()
    }
}
