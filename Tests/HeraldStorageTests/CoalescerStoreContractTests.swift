import Foundation
import HeraldCoalescer
import HeraldCore
import HeraldStorage
import HeraldTestSupport
import Testing

// The coalescer's use cases over its store port (`CoalescerStore`), on SQLite and on a real
// PostgreSQL server: a decision that refuses writes nothing, changes on one device take turns,
// and live hand-overs are read back above a cursor until acknowledged.

private let app = App(id: StoreBackend.app)
private let battery = SystemEvent(kind: "batteryLevel", value: .number(0.5))
private let orientation = SystemEvent(kind: "orientation", value: .string("faceUp"))

@Suite("Coalescer store contract")
struct CoalescerStoreContractTests {
    @Test("A move iOS cannot make writes nothing: the acknowledgement it carried and the state stay as they were",
          arguments: StoreBackend.all)
    func refusedMoveWritesNothing(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await StoreBackend.prepare(host)
            let coalescer = subject.store.coalescer
            _ = try await coalescer.report([battery], app: app, deviceID: "d0")
            let wake = try await coalescer.move(app: app, deviceID: "d0", to: .active, drain: true)
            let handed = try #require(wake.backlogSequence)
            #expect(wake.notifications.map(\.kind) == ["batteryLevel"])

            await #expect(throws: HeraldError.self) {
                try await coalescer.move(app: app, deviceID: "d0", to: .suspended, drain: false, acknowledging: handed)
            }
            let events = try await subject.store.deviceEvents(appID: app.id, deviceID: "d0")
            #expect(events.device.state == .active)
            #expect(events.backlog.handedSequence == handed, "the refused move's acknowledgement was not written")
            #expect(try await coalescer.acknowledge(appID: app.id, deviceID: "d0", upTo: handed).backlog)
            await subject.close()
        }
    }

    @Test("Changes on one device take turns: 40 wake pushes racing under a limit of 10 record exactly 10 (5 rounds)",
          arguments: StoreBackend.all)
    func racingChangesTakeTurns(backend: StoreBackend) async throws {
        try await backend.with { host in
            for round in 0..<5 {
                let subject = try await StoreBackend.prepare(host)
                let coalescer = subject.store.coalescer
                let now = StoreBackend.start.addingTimeInterval(Double(round))
                let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<40 {
                        group.addTask { try await coalescer.recordWakePush(appID: app.id, deviceID: "d0", now: now, perHour: 10) }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(allowed == 10, "round \(round)")
                #expect(try await subject.store.deviceEvents(appID: app.id, deviceID: "d0").wakePushes.count == 10)
                // An hour later the throttle has room again.
                #expect(try await coalescer.recordWakePush(appID: app.id, deviceID: "d0", now: now.addingTimeInterval(3_601),
                                                           perHour: 10))
                await subject.close()
            }
        }
    }

    @Test("Events reported to an awake, streaming device are handed over live: read back above a cursor until acknowledged",
          arguments: StoreBackend.all)
    func liveHandOversAreReadBackUntilAcknowledged(backend: StoreBackend) async throws {
        try await backend.with { host in
            let subject = try await StoreBackend.prepare(host)
            let streams = LiveStreams()
            let coalescer = Coalescer(store: subject.store, streams: streams)
            // Held to the end: a stream nobody reads from is closed, and the device no longer streams.
            let (subscription, messages) = try await streams.subscribe(appID: app.id, deviceID: "d0")
            _ = try await coalescer.move(app: app, deviceID: "d0", to: .active, drain: true)

            let first = try await coalescer.report([battery], app: app, deviceID: "d0")
            let second = try await coalescer.report([orientation], app: app, deviceID: "d0")
            let (firstID, secondID) = (try #require(first.liveSequence), try #require(second.liveSequence))
            #expect(first.queued == 0 && first.live == [battery])
            #expect(firstID < secondID)

            #expect(try await coalescer.handedOver(appID: app.id, deviceID: "d0", after: 0).live.map(\.sequence) == [firstID, secondID])
            #expect(try await coalescer.handedOver(appID: app.id, deviceID: "d0", after: firstID).live.map(\.sequence) == [secondID])
            _ = try await coalescer.acknowledge(appID: app.id, deviceID: "d0", upTo: firstID)
            let left = try await coalescer.handedOver(appID: app.id, deviceID: "d0", after: 0)
            #expect(left.live.map(\.events) == [[orientation]])
            #expect(!left.missedLive && left.inbox.isEmpty)

            // Until the last is acknowledged, a wake hands their net change over again.
            let wake = try await coalescer.move(app: app, deviceID: "d0", to: .active, drain: true)
            #expect(Set(wake.notifications.map(\.kind)) == ["batteryLevel", "orientation"])
            await streams.unsubscribe(appID: app.id, deviceID: "d0", id: subscription)
            withExtendedLifetime(messages) {}
            await subject.close()
        }
    }
}
