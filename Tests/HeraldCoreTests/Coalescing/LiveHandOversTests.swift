import Foundation
import HeraldCore
import Testing

private typealias F = CoalescingFixture

// DESIGN.md: "Inbox items, the coalesced backlog and live messages carry sequence ids and stay
// until the client acknowledges them." Issue 26: "Live events are counted when they arrive, not
// when pg_notify returns; events published while a listener reconnects are not lost."
@Suite("Live events are kept until acknowledged, and counted as received only then")
struct LiveHandOversTests {
    @Test("A stream reads the batches above its cursor, in id order")
    func readAboveCursor() {
        var live = LiveHandOvers()
        live.append([F.event("orientation", nil, "portrait")], sequence: 10)
        live.append([F.event("settings", "a", 1), F.event("settings", "b", 2)], sequence: 12)
        let all = live.after(-1)
        #expect(all.batches.map(\.sequence) == [10, 12])
        #expect(!all.missed)
        #expect(live.after(10).batches.map(\.sequence) == [12])
        #expect(live.after(12).batches.isEmpty)
    }

    @Test("An acknowledgement removes the batches up to its id, and only those")
    func acknowledgementRemoves() {
        var live = LiveHandOvers()
        live.append([F.event("orientation", nil, "portrait")], sequence: 10)
        live.append([F.event("orientation", nil, "faceUp")], sequence: 12)
        live.acknowledge(upTo: 11)
        #expect(live.batches.map(\.sequence) == [12])
        live.acknowledge(upTo: 12)
        #expect(live.isEmpty)
    }

    @Test("Beyond the limit the oldest batches are forgotten, and a stream that had not read them is told it missed them")
    func boundedAndMissed() {
        var live = LiveHandOvers()
        let half = LiveHandOvers.limit / 2
        live.append((0..<half).map { F.event("settings", "a\($0)", Double($0)) }, sequence: 1)
        live.append((0..<half).map { F.event("settings", "b\($0)", Double($0)) }, sequence: 2)
        live.append([F.event("orientation", nil, "portrait")], sequence: 3)
        #expect(live.batches.map(\.sequence) == [2, 3], "the oldest batch made room")
        #expect(live.after(0).missed, "a stream below the forgotten batch missed it")
        #expect(!live.after(1).missed, "a stream that read it did not")
        live.acknowledge(upTo: 1)
        #expect(!live.after(0).missed, "acknowledged, nothing is missed any more")
    }

    @Test("A batch larger than the limit on its own is still kept: the newest is never forgotten")
    func newestKept() {
        var live = LiveHandOvers()
        live.append((0...LiveHandOvers.limit).map { F.event("settings", "k\($0)", 1) }, sequence: 4)
        #expect(live.batches.map(\.sequence) == [4])
    }

    @Test("Acknowledged, events handed over live are the baseline of the next backlog")
    func acknowledgedIsTheBaseline() throws {
        var backlog = AcknowledgedBacklog()
        backlog.handOverLive([F.event("orientation", nil, "portrait")], catalog: F.catalog, sequence: 7)
        let acknowledged = backlog.acknowledge(upTo: 7)
        #expect(acknowledged)
        try backlog.ingest(F.event("orientation", nil, "portrait"), catalog: F.catalog)
        let next = backlog.handOver(catalog: F.catalog, sequence: 8)
        #expect(next.batch.isEmpty, "the client already holds portrait")
    }

    @Test("Not acknowledged, events handed over live come again in the next wake's backlog")
    func unacknowledgedComeAgain() {
        var backlog = AcknowledgedBacklog()
        backlog.handOverLive([F.event("orientation", nil, "portrait"), F.event("settings", "a", 1)],
                             catalog: F.catalog, sequence: 7)
        #expect(backlog.queue.pendingCount == 0, "as if received: nothing else waits")
        let early = backlog.acknowledge(upTo: 6)
        #expect(!early, "an older id acknowledges nothing of them")
        let again = backlog.handOver(catalog: F.catalog, sequence: 9)
        #expect(again.sequence == 9)
        #expect(again.batch == [CoalescedNotification(kind: "orientation", key: nil, value: .string("portrait"), count: 1),
                                CoalescedNotification(kind: "settings", key: "a", value: .number(1), count: 1)])
    }

    @Test("A later id acknowledges earlier live hand-overs and the wake's backlog before them")
    func laterIDCoversEarlier() throws {
        var backlog = AcknowledgedBacklog()
        try backlog.ingest(F.event("batteryState", nil, "full"), catalog: F.catalog)
        let woke = backlog.handOver(catalog: F.catalog, sequence: 5)
        #expect(woke.batch.count == 1)
        backlog.handOverLive([F.event("settings", "a", 1)], catalog: F.catalog, sequence: 6)
        backlog.handOverLive([F.event("settings", "b", 2)], catalog: F.catalog, sequence: 8)
        #expect(backlog.pendingCount == 3, "none acknowledged yet: a wake would hand all three over again")
        let acknowledged = backlog.acknowledge(upTo: 8)
        #expect(acknowledged)
        #expect(backlog.pendingCount == 0)
    }

    @Test("Live hand-overs survive a round trip through storage")
    func codable() throws {
        var live = LiveHandOvers()
        live.append([F.event("settings", "a", 1)], sequence: 3)
        let restored = try JSONDecoder().decode(LiveHandOvers.self, from: try JSONEncoder().encode(live))
        #expect(restored == live)
    }
}
