import Foundation
import HeraldPostgres
import HeraldTestSupport
import Logging
import HeraldCoalescer
import HeraldCore
import HeraldStorage
import Synchronization
import Testing

// The contract every backend keeps, whatever it is built on: the 128 limit under concurrency, a
// claim that sees every cancel committed before it, each occurrence fired once however many
// claimers race, and a fire log that outlives a crash. It runs against SQLite and against a real
// PostgreSQL server.

private let app = StoreBackend.app
private let start = StoreBackend.start

private func prepare(_ host: BackendHost, devices: Int = 1) async throws -> StoreUnderTest {
    try await StoreBackend.prepare(host, devices: devices)
}

private let fixtures = StoreFixtures(app: app, start: start)

@Suite("Store contract")
struct StoreContractTests {
    @Test("200 parallel schedules on one device leave exactly 128; the rest are refused (10 rounds)",
          arguments: StoreBackend.all)
    func limitUnderConcurrency(backend: StoreBackend) async throws {
        try await backend.with { host in
            for round in 1...10 {
                let subject = try await prepare(host)
                let store = subject.store
                let refusals = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            do {
                                _ = try await store.schedule(fixtures.oneShot("n\(index)", at: 60 + Double(index)), now: start)
                                return false
                            } catch let error as HeraldError where error.reason == .notificationLimitReached {
                                return true
                            }
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                let pending = try await store.notifications(appID: app, deviceID: "d0")
                #expect(pending.count == 128, "round \(round): \(pending.count) pending")
                #expect(refusals == 72, "round \(round): \(refusals) refused")
                await subject.close()
            }
        }
    }

    @Test("keepSoonest: 200 parallel schedules on one device keep the 128 soonest, and each of the other 72 is evicted once, with its feedback (5 rounds)",
          arguments: StoreBackend.all)
    func keepSoonestUnderConcurrency(backend: StoreBackend) async throws {
        try await backend.with { host in
            for round in 1...5 {
                let subject = try await host.makeStore()
                let store = subject.store
                _ = try await store.saveApp(App(id: app, overflow: .keepSoonest))
                _ = try await store.saveDevice(Device(appID: app, id: "d0", timeZone: "UTC"), now: start)
                let evicted = try await withThrowingTaskGroup(of: [String].self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            try await store.schedule(fixtures.oneShot("n\(index)", at: 60 + Double(index)), now: start).evicted
                        }
                    }
                    return try await group.reduce(into: [String]()) { $0 += $1 }
                }
                let pending = Set(try await store.notifications(appID: app, deviceID: "d0").map(\.id))
                #expect(pending == Set((0..<128).map { "n\($0)" }), "round \(round)")
                #expect(evicted.sorted() == (128..<200).map { "n\($0)" }.sorted(), "round \(round): \(evicted.count) evicted")
                // Each evicted notification's id, as its outbox message's body.
                _ = try await store.fanOutFeedback(to: ["http://receiver"], now: start, room: { 1_000 - $0 }) { backlog in
                    FeedbackReceiverPlan(messages: backlog.events.compactMap { stored in
                        guard let event = stored.event, case .string(let id)? = event.payload["notificationId"] else { return nil }
                        return FeedbackReceiverPlan.Message(eventKey: stored.key, type: event.type, body: id)
                    }, cursor: backlog.events.last?.key ?? backlog.cursor)
                }
                let feedback = try await store.outboxMessages(state: nil, limit: 1_000).map(\.body)
                #expect(feedback.sorted() == evicted.sorted(), "round \(round)")
                await subject.close()
            }
        }
    }

    @Test("A schedule whose decision refuses writes nothing: the device's snapshot is as it was", arguments: StoreBackend.all)
    func refusedDecisionWritesNothing(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host)
            let store = subject.store
            _ = try await store.schedule(fixtures.oneShot("first", at: 60), now: start)
            let before = try await store.scheduleSnapshot(appID: app, deviceID: "d0")
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                _ = try await store.schedule(appID: app, deviceID: "d0") { _ in throw Refused() }
            }
            let after = try await store.scheduleSnapshot(appID: app, deviceID: "d0")
            #expect(after.version == before.version)
            #expect(after.pending == before.pending)
            await subject.close()
        }
    }

    @Test("A schedule snapshot names what is missing: the app, or the device", arguments: StoreBackend.all)
    func snapshotNamesWhatIsMissing(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host)
            await #expect(throws: HeraldError.appNotFound("nope")) {
                _ = try await subject.store.scheduleSnapshot(appID: "nope", deviceID: "d0")
            }
            await #expect(throws: HeraldError.deviceNotFound(appID: app, deviceID: "nope")) {
                _ = try await subject.store.scheduleSnapshot(appID: app, deviceID: "nope")
            }
            await subject.close()
        }
    }

    @Test("Activities registered at once on one device all stay, and a device PUT keeps them (10 rounds of 20)",
          arguments: StoreBackend.all)
    func activitiesRegisteredAtOnceAllStay(backend: StoreBackend) async throws {
        try await backend.with { host in
            for round in 1...10 {
                let subject = try await prepare(host)
                let store = subject.store
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            let token = LiveActivityToken(token: String(format: "%064x", index + 1), attributesType: "T")
                            _ = try await store.saveActivity(appID: app, deviceID: "d0", activity: "a\(index)", token: token, now: start)
                        }
                    }
                    try await group.waitForAll()
                }
                _ = try await store.saveDevice(Device(appID: app, id: "d0", timeZone: "Europe/Paris"), now: start)
                let device = try await store.device(appID: app, id: "d0")
                #expect(device?.activities.count == 20, "round \(round): \(device?.activities.count ?? -1) activities")
                #expect(try await store.forgetActivity(appID: app, deviceID: "d0", activity: "a3"))
                #expect(try await store.forgetActivity(appID: app, deviceID: "d0", activity: "a3") == false)
                await subject.close()
            }
        }
    }

    @Test("Two creates of one channel name racing: the first is kept, the second changes nothing (10 rounds)",
          arguments: StoreBackend.all)
    func channelCreatesRacing(backend: StoreBackend) async throws {
        try await backend.with { host in
            for round in 1...10 {
                let subject = try await prepare(host)
                let store = subject.store
                let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<4 {
                        group.addTask {
                            try await store.createChannel(BroadcastChannel(name: "m", apnsChannelID: "id\(index)=", messageStoragePolicy: 0),
                                                          appID: app, now: start)
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(created.filter { $0 }.count == 1, "round \(round): \(created)")
                #expect(try await store.channels(appID: app).count == 1)
                await subject.close()
            }
        }
    }

    @Test("A cancel and a claim racing: each one-shot is either cancelled or fired, never both (20 rounds)",
          arguments: StoreBackend.all)
    func cancelRacingClaim(backend: StoreBackend) async throws {
        try await backend.with { host in
            for round in 1...20 {
                let subject = try await prepare(host)
                let store = subject.store
                for index in 0..<100 { _ = try await store.schedule(fixtures.oneShot("n\(index)", at: 10), now: start) }
                async let cancelled: Set<String> = withThrowingTaskGroup(of: String?.self) { group in
                    for index in 0..<100 {
                        group.addTask { try await store.cancel(appID: app, deviceID: "d0", id: "n\(index)") ? "n\(index)" : nil }
                    }
                    var ids = Set<String>()
                    for try await id in group { if let id { ids.insert(id) } }
                    return ids
                }
                async let fired = fixtures.claimAll(store, at: 10, limit: 7)
                let cancelledIDs = try await cancelled
                let firedIDs = try await fired.map(\.occurrence.notificationID)
                #expect(Set(firedIDs).isDisjoint(with: cancelledIDs), "round \(round): fired after a successful cancel")
                #expect(firedIDs.count + cancelledIDs.count == 100, "round \(round): each is either cancelled or fired, once")
                #expect(Set(firedIDs).count == firedIDs.count, "round \(round): fired twice")
                await subject.close()
            }
        }
    }

    @Test("Two claimers on one store fire each occurrence exactly once (10 rounds)", arguments: StoreBackend.all)
    func twoClaimersFireOnce(backend: StoreBackend) async throws {
        try await backend.with { host in
            for round in 1...10 {
                let subject = try await prepare(host, devices: 4)
                let store = subject.store
                for index in 0..<400 {
                    _ = try await store.schedule(fixtures.oneShot("n\(index)", device: "d\(index % 4)", at: 10 + Double(index % 5) * 0.001),
                                                 now: start)
                }
                async let first = fixtures.claimAll(store, at: 10.01, limit: 13)
                async let second = fixtures.claimAll(store, at: 10.01, limit: 17)
                let all = try await first + second
                let ids = all.map { "\($0.occurrence.deviceID)/\($0.occurrence.id)" }
                #expect(ids.count == 400, "round \(round): \(ids.count) fired")
                #expect(Set(ids).count == ids.count, "round \(round): an occurrence fired twice")
                #expect(Set(all.compactMap(\.logID)).count == 400, "round \(round): each firing has its own log row")
                await subject.close()
            }
        }
    }

    @Test("A crash between commit and delivery loses nothing: the log alone hands every firing over again, with its content",
          arguments: StoreBackend.all)
    func crashBetweenCommitAndDelivery(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host)
            for index in 0..<50 { _ = try await subject.store.schedule(fixtures.oneShot("n\(index)", at: 10), now: start) }
            let fired = try await fixtures.claimAll(subject.store, at: 10)
            #expect(fired.count == 50)
            try await subject.restart()
            #expect(try await subject.store.notifications(appID: app, deviceID: "d0").isEmpty, "one-shots are gone once fired")
            let (unfinished, orphaned) = try await subject.store.unfinishedFirings()
            #expect(orphaned.isEmpty)
            #expect(Set(unfinished.map(\.occurrence.id)) == Set((0..<50).map { "n\($0)#0" }))
            #expect(unfinished.allSatisfy { (try? $0.content())?.alert?.body == $0.occurrence.notificationID })
            try await subject.store.completeDeliveries(unfinished.map {
                CompletedDelivery(deliveryID: $0.logID!, channel: .recorded, outcome: .recorded)
            })
            #expect(try await subject.store.unfinishedFirings().fired.isEmpty, "nothing is handed over twice")
            await subject.close()
        }
    }

    @Test("An inbox holds each firing once, however often it is handed over", arguments: StoreBackend.all)
    func inboxHoldsEachFiringOnce(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host)
            _ = try await subject.store.schedule(fixtures.oneShot("n", at: 10), now: start)
            let fired = try #require(try await fixtures.claimAll(subject.store, at: 10).first)
            for _ in 0..<3 { try await subject.store.holdInInbox([try inboxItem(fired)]) }
            let woken = try await subject.store.coalescer.move(app: App(id: app), deviceID: "d0", to: .background, drain: true)
            #expect(woken.inbox.map(\.occurrence.id) == ["n#0"])
            await subject.close()
        }
    }

    @Test("A firing held on its way to a live stream stays pending until its outcome is stored; one held to stay is held at once",
          arguments: StoreBackend.all)
    func holdBeforeStreamingLeavesOutcomePending(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host)
            let store = subject.store
            _ = try await store.schedule(fixtures.oneShot("live", at: 10), now: start)
            _ = try await store.schedule(fixtures.oneShot("asleep", at: 10), now: start)
            let fired = try await fixtures.claimAll(store, at: 10)
            let live = try #require(fired.first { $0.occurrence.notificationID == "live" })
            let asleep = try #require(fired.first { $0.occurrence.notificationID == "asleep" })
            func outcome(_ firing: FiredOccurrence) async throws -> [String]? {
                try await store.deliveries(appID: app, deviceID: "d0", limit: 10)
                    .first { $0.occurrenceID == firing.occurrence.id }.map { [$0.channel.rawValue, $0.outcome.rawValue] }
            }

            #expect(try await store.holdInInbox([try inboxItem(live)], .beforeStreaming).first ?? nil != nil)
            #expect(try await store.holdInInbox([try inboxItem(asleep)], .final).first ?? nil != nil)
            #expect(try await outcome(live) == ["pending", "pending"], "not held: a stream is told next")
            #expect(try await outcome(asleep) == [CompletedDelivery.heldChannel, CompletedDelivery.heldOutcome])
            #expect(try await store.unfinishedFirings().fired.map(\.occurrence.id) == [live.occurrence.id])

            try await store.completeDeliveries([CompletedDelivery(deliveryID: try #require(live.logID), channel: .stream,
                                                                  outcome: .delivered)])
            #expect(try await outcome(live) == ["stream", "delivered"])
            let woken = try await store.coalescer.move(app: App(id: app), deviceID: "d0", to: .background, drain: true)
            #expect(Set(woken.inbox.map(\.occurrence.id)) == [live.occurrence.id, asleep.occurrence.id],
                    "both stay in the inbox until acknowledged")
            await subject.close()
        }
    }

    @Test("Status counts: pending notifications, the fire log backlog, inboxes, coalesced backlogs by kind and invalid tokens",
          arguments: StoreBackend.all)
    func statusCounts(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host, devices: 2)
            let store = subject.store
            for (id, offset) in [("soon", 10.0), ("alsoSoon", 10.0), ("later", 20.0), ("tomorrow", 86_400.0)] {
                _ = try await store.schedule(fixtures.oneShot(id, at: offset), now: start)
            }
            _ = try await store.schedule(fixtures.oneShot("tomorrow", device: "d1", at: 86_400), now: start)
            // One firing held in d0's inbox, with its outcome; another without an outcome yet.
            let claimed = try await fixtures.claimAll(store, at: 10)
            let fired = try #require(claimed.first { $0.occurrence.notificationID == "soon" })
            try await store.holdInInbox([try inboxItem(fired)])
            try await store.completeDeliveries([CompletedDelivery.heldInInbox(fired.logID!)])
            // d1 is not running: its events queue, one coalesced notification per kind.
            _ = try await store.coalescer.report([
                SystemEvent(kind: "batteryLevel", value: .number(0.5)), SystemEvent(kind: "batteryLevel", value: .number(0.4)),
                SystemEvent(kind: "orientation", value: .string("faceUp")),
            ], app: App(id: app), deviceID: "d1")
            _ = try await store.invalidateToken(
                InvalidToken(appID: app, token: "dead", reason: "Unregistered", apnsTimestamp: nil, invalidatedAt: start),
                feedback: FeedbackEvent(type: .tokenInvalid, appID: app, payload: [:], createdAt: start))

            let gauges = try await store.storeGauges()
            #expect(gauges.pendingNotifications == 3)
            #expect(gauges.fireLogBacklog == 1)
            #expect(try await store.eventBacklogByKind() == ["batteryLevel": 1, "orientation": 1])
            #expect(gauges.outboxPending == 0 && gauges.outboxParked == 0)

            #expect(try await store.appStatuses() == [AppStatus(appID: app, devices: 2, pendingNotifications: 3, invalidTokens: 1)])
            let devices = try await store.deviceStatuses(appID: app, limit: 10)
            #expect(devices.map(\.device.id) == ["d0", "d1"])
            #expect(devices.map(\.pendingNotifications) == [2, 1])
            #expect(devices.map(\.inbox) == [1, 0])
            #expect(devices.map(\.eventBacklog) == [0, 2])
            #expect(try await store.deviceStatuses(appID: app, limit: 1).count == 1)
            let inbox = try await store.inboxEntries(appID: app, deviceID: "d0", limit: 10)
            #expect(inbox.map(\.notificationID) == ["soon"])
            #expect(inbox.first?.firedAt == fired.firedAt)

            await #expect(throws: HeraldError.self) { try await store.deviceStatuses(appID: "com.example.none", limit: 10) }
            await #expect(throws: HeraldError.self) { try await store.inboxEntries(appID: app, deviceID: "ghost", limit: 10) }
            await subject.close()
        }
    }

    @Test("What a claim holds in an inbox itself is there with its outcome and an id above earlier items'; nothing claimed before its instant is held",
          arguments: StoreBackend.all)
    func claimHoldsOnlyDueFirings(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host)
            let store = subject.store
            _ = try await store.schedule(fixtures.oneShot("before", at: 10), now: start)
            let before = try #require(try await fixtures.claimAll(store, at: 10).first)
            let beforeID = try #require(try await store.holdInInbox([try inboxItem(before)]).first ?? nil)
            try await store.completeDeliveries([CompletedDelivery.heldInInbox(try #require(before.logID))])
            _ = try await store.schedule(fixtures.oneShot("due", at: 20), now: start)
            _ = try await store.schedule(fixtures.oneShot("soon", at: 20.001), now: start)
            let at = start.addingTimeInterval(20)
            let claim = try await store.claimDue(until: at.addingTimeInterval(0.002), firedAt: at, limit: 10,
                                                 holding: InboxOnlyRule { _, _ in true }) { due in
                due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: at, lateAfter: 1)
            }
            let held = claim.heldInInbox.map(\.occurrence.id)
            #expect(Set(held + claim.fired.map(\.occurrence.id)) == ["due#0", "soon#0"])
            #expect(held == ["due#0"], "claimed before its instant: not in an inbox yet")
            #expect(claim.heldInInbox.allSatisfy { $0.logID != nil })
            let inbox = try await store.handedOver(appID: app, deviceID: "d0", after: beforeID).inbox
            #expect(inbox.map(\.occurrence.id) == held)
            let unfinished = try await store.unfinishedFirings().fired.map(\.occurrence.id)
            #expect(Set(unfinished) == Set(claim.fired.map(\.occurrence.id)))
            let outcomes = try await store.deliveries(appID: app, deviceID: "d0", limit: 10)
            for id in held {
                #expect(outcomes.first { $0.occurrenceID == id }.map { [$0.channel.rawValue, $0.outcome.rawValue] }
                        == [CompletedDelivery.heldChannel, CompletedDelivery.heldOutcome])
            }
            await subject.close()
        }
    }

    @Test("An acknowledged inbox item is not held again when its firing is handed over again, and later items get higher ids",
          arguments: StoreBackend.all)
    func acknowledgedItemStaysAcknowledged(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host)
            let store = subject.store
            _ = try await store.schedule(fixtures.oneShot("first", at: 10), now: start)
            let first = try #require(try await fixtures.claimAll(store, at: 10).first)
            let firstID = try #require(try await store.holdInInbox([try inboxItem(first)]).first ?? nil)
            #expect(try await store.coalescer.acknowledge(appID: app, deviceID: "d0", upTo: firstID).inboxItems == 1)
            // A retry after a lost reply: the same firing handed over again finds its item.
            #expect(try await store.holdInInbox([try inboxItem(first)]) == [firstID])
            #expect(try await store.handedOver(appID: app, deviceID: "d0", after: 0).inbox.isEmpty)

            _ = try await store.schedule(fixtures.oneShot("second", at: 20), now: start)
            let second = try #require(try await fixtures.claimAll(store, at: 20).first)
            let secondID = try #require(try await store.holdInInbox([try inboxItem(second)]).first ?? nil)
            #expect(secondID > firstID)
            let inbox = try await store.handedOver(appID: app, deviceID: "d0", after: firstID).inbox
            #expect(inbox.map(\.occurrence.id) == ["second#0"])
            #expect(inbox.map(\.sequence) == [secondID])
            await subject.close()
        }
    }

    @Test("A deleted device, or a deleted app, takes its inbox with it: registered again, the device starts empty",
          arguments: StoreBackend.all)
    func deletedDeviceLeavesNoInbox(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host, devices: 2)
            let store = subject.store
            _ = try await store.schedule(fixtures.oneShot("n", device: "d0", at: 10), now: start)
            _ = try await store.schedule(fixtures.oneShot("n", device: "d1", at: 10), now: start)
            let fired = try await fixtures.claimAll(store, at: 10)
            #expect(try await store.holdInInbox(try fired.map(inboxItem)).allSatisfy { $0 != nil })

            #expect(try await store.deleteDevice(appID: app, id: "d0"))
            _ = try await store.saveDevice(Device(appID: app, id: "d0", timeZone: "UTC"), now: start)
            #expect(try await store.handedOver(appID: app, deviceID: "d0", after: 0).inbox.isEmpty)
            #expect(try await store.handedOver(appID: app, deviceID: "d1", after: 0).inbox.count == 1)

            #expect(try await store.deleteApp(id: app))
            _ = try await store.saveApp(App(id: app))
            _ = try await store.saveDevice(Device(appID: app, id: "d1", timeZone: "UTC"), now: start)
            #expect(try await store.handedOver(appID: app, deviceID: "d1", after: 0).inbox.isEmpty)
            await subject.close()
        }
    }

    @Test("Retention keeps an inbox item until it is acknowledged, however old its firing", arguments: StoreBackend.all)
    func retentionKeepsUnacknowledgedItems(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await prepare(host)
            let store = subject.store
            _ = try await store.schedule(fixtures.oneShot("n", at: 10), now: start)
            let fired = try await fixtures.claimAll(store, at: 10)
            let id = try #require(try await store.holdInInbox(try fired.map(inboxItem)).first ?? nil)
            try await store.completeDeliveries(fired.map { CompletedDelivery(deliveryID: $0.logID!, channel: .inbox, outcome: .held) })
            let policy = RetentionPolicy(deliveries: 60, feedback: 60, idempotency: 60)
            let muchLater = start.addingTimeInterval(30 * 86_400)
            _ = try await store.pruneExpired(now: muchLater, policy: policy, batchSize: 100)
            #expect(try await store.handedOver(appID: app, deviceID: "d0", after: 0).inbox.map(\.sequence) == [id])
            _ = try await store.coalescer.acknowledge(appID: app, deviceID: "d0", upTo: id)
            _ = try await store.pruneExpired(now: muchLater, policy: policy, batchSize: 100)
            #expect(try await store.handedOver(appID: app, deviceID: "d0", after: 0).inbox.isEmpty)
            await subject.close()
        }
    }

    @Test("Listings page in byte order of their keys (deliveries newest first), filter devices, and leave channels out",
          arguments: StoreBackend.all)
    func listingsPageInKeyOrder(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await host.makeStore()
            let store = subject.store
            // Byte order: upper case before lower case, "." before letters, whatever the collation.
            let apps = ["B.app", "a.app", "a.app2", "c.app", "Z.app"]
            for id in apps { _ = try await store.saveApp(App(id: id)) }
            var walked: [String] = []
            var after: String?
            repeat {
                let page = try await store.apps(after: after, limit: 2)
                walked += page.items.map(\.id)
                after = page.nextKey
            } while after != nil
            #expect(walked == apps.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })

            for (index, platform) in [Platform.ios, .android, .ios].enumerated() {
                var device = Device(appID: "a.app", id: "d\(index)", timeZone: "UTC")
                device.platform = platform
                _ = try await store.saveDevice(device, now: start)
            }
            _ = try await store.createChannel(BroadcastChannel(name: "news", apnsChannelID: "dHN0LTEyMzQ=", messageStoragePolicy: 0), appID: "a.app", now: start)
            let ios = try await store.devices(appID: "a.app", filter: DeviceFilter(platform: .ios), after: nil, limit: 10)
            #expect(ios.items.map(\.id) == ["d0", "d2"])
            #expect(ios.nextKey == nil)
            let firstTwo = try await store.devices(appID: "a.app", filter: DeviceFilter(), after: nil, limit: 2)
            #expect(firstTwo.items.map(\.id) == ["d0", "d1"])
            let rest = try await store.devices(appID: "a.app", filter: DeviceFilter(), after: firstTwo.nextKey, limit: 2)
            #expect(rest.items.map(\.id) == ["d2"])
            #expect(try await store.devices(appID: "a.app", filter: DeviceFilter(state: .active), after: nil, limit: 10).items.isEmpty)

            for name in ["orders", "builds", "alerts"] { _ = try await store.saveHook(name: name, definition: "{}") }
            let hooks = try await store.hooks(after: "alerts", limit: 10)
            #expect(hooks.items.map(\.name) == ["builds", "orders"])

            try await store.recordDeliveries((0..<5).map { index in
                Delivery(occurrenceID: "n\(index)#0", appID: "a.app", deviceID: "d0", notificationID: "n\(index)",
                         scheduledFor: start, firedAt: start, late: false, missed: 0, channel: .inbox, outcome: .held)
            })
            let newest = try await store.deliveries(appID: "a.app", deviceID: "d0", before: nil, limit: 3)
            #expect(newest.items.map(\.notificationID) == ["n4", "n3", "n2"])
            let older = try await store.deliveries(appID: "a.app", deviceID: "d0", before: newest.nextKey, limit: 3)
            #expect(older.items.map(\.notificationID) == ["n1", "n0"])
            #expect(older.nextKey == nil)
            await subject.close()
        }
    }
}

/// The inbox item the router makes of a firing.
private func inboxItem(_ fired: FiredOccurrence) throws -> InboxItem {
    InboxItem(logID: fired.logID, occurrence: fired.occurrence, content: try fired.content(), firedAt: fired.firedAt)
}
