import Foundation
import HeraldCore
import Testing

// "Hand-over is acknowledged. Inbox items, the coalesced backlog and live messages carry
// sequence ids and stay until the client acknowledges them."
@Suite("The coalesced backlog is handed over until acknowledged")
struct AcknowledgedBacklogTests {
    static let catalog = try! EventCatalog(customKinds: [CustomKind(name: "badge", rule: .sum)])
    typealias F = CoalescingFixture

    static func lines(_ batch: [CoalescedNotification]) -> [String] {
        batch.map { notification in
            let value = notification.value.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
            return "\(notification.kind)\(notification.key.map { "[\($0)]" } ?? "")=\(value ?? "-")×\(notification.count)"
        }
    }

    @Test("A hand-over carries a sequence id; handed over again without an ack, it is the same batch")
    func sameBatchUntilAcknowledged() throws {
        var backlog = AcknowledgedBacklog()
        try backlog.ingest(F.event("orientation", nil, "landscapeLeft"), catalog: Self.catalog)
        try backlog.ingest(F.event("badge", nil, 2.0), catalog: Self.catalog)
        let first = backlog.handOver(catalog: Self.catalog, sequence: 10)
        #expect(first.sequence == 10)
        #expect(Self.lines(first.batch) == ["orientation=\"landscapeLeft\"×1", "badge=2×1"])
        let again = backlog.handOver(catalog: Self.catalog, sequence: 11)
        #expect(again.sequence == 11)
        #expect(again.batch == first.batch)
    }

    @Test("An acknowledgement at or past the hand-over's id ends it; an older one does not")
    func acknowledgementEndsIt() throws {
        var backlog = AcknowledgedBacklog()
        try backlog.ingest(F.event("badge", nil, 2.0), catalog: Self.catalog)
        _ = backlog.handOver(catalog: Self.catalog, sequence: 10)
        let early = backlog.acknowledge(upTo: 9)
        #expect(!early, "an id before the hand-over acknowledges nothing of it")
        #expect(backlog.pendingCount == 1)
        let acknowledged = backlog.acknowledge(upTo: 10)
        #expect(acknowledged)
        #expect(backlog.pendingCount == 0)
        let next = backlog.handOver(catalog: Self.catalog, sequence: 11)
        #expect(next.batch.isEmpty && next.sequence == nil, "nothing to hand over: no id is spent")
    }

    @Test("Events after an unacknowledged hand-over merge with it by each kind's rule")
    func mergedByRule() throws {
        var backlog = AcknowledgedBacklog()
        try backlog.ingest(F.event("badge", nil, 2.0), catalog: Self.catalog)
        try backlog.ingest(F.event("accessory", "a1", "connected"), catalog: Self.catalog)
        _ = backlog.handOver(catalog: Self.catalog, sequence: 10)
        try backlog.ingest(F.event("badge", nil, 3.0), catalog: Self.catalog)
        try backlog.ingest(F.event("accessory", "a1", "disconnected"), catalog: Self.catalog)
        let merged = backlog.handOver(catalog: Self.catalog, sequence: 11)
        // Since the last acknowledged hand-over the sum adds up and the accessory came and went;
        // but a client that read "connected" must hear that it went.
        #expect(Self.lines(merged.batch) == ["accessory[a1]=\"disconnected\"×1", "badge=5×2"])
        let acknowledged = backlog.acknowledge(upTo: 11)
        #expect(acknowledged)
        try backlog.ingest(F.event("badge", nil, 1.0), catalog: Self.catalog)
        #expect(Self.lines(backlog.handOver(catalog: Self.catalog, sequence: 12).batch) == ["badge=1×1"],
                "after the ack, only what came since")
    }

    @Test("A value that went back after an unacknowledged hand-over is handed over again, with its current value")
    func valueThatWentBack() throws {
        var backlog = AcknowledgedBacklog()
        try backlog.ingest(F.event("orientation", nil, "portrait"), catalog: Self.catalog)
        _ = backlog.handOver(catalog: Self.catalog, sequence: 1)
        backlog.acknowledge(upTo: 1)
        try backlog.ingest(F.event("orientation", nil, "landscapeLeft"), catalog: Self.catalog)
        _ = backlog.handOver(catalog: Self.catalog, sequence: 2)
        // Not acknowledged; back to portrait. Measured from the acknowledged value that is no
        // change, but a client that did read landscapeLeft must hear of portrait.
        try backlog.ingest(F.event("orientation", nil, "portrait"), catalog: Self.catalog)
        let again = backlog.handOver(catalog: Self.catalog, sequence: 3)
        #expect(Self.lines(again.batch) == ["orientation=\"portrait\"×1"])
        #expect(again.sequence == 3)
    }

    @Test("The acknowledged state is what a delivered hand-over leaves: a later backlog is measured against it")
    func acknowledgedBaseline() throws {
        var backlog = AcknowledgedBacklog()
        try backlog.ingest(F.event("orientation", nil, "landscapeLeft"), catalog: Self.catalog)
        _ = backlog.handOver(catalog: Self.catalog, sequence: 4)
        try backlog.ingest(F.event("orientation", nil, "portrait"), catalog: Self.catalog)
        try backlog.ingest(F.event("orientation", nil, "landscapeLeft"), catalog: Self.catalog)
        backlog.acknowledge(upTo: 4)
        #expect(backlog.handOver(catalog: Self.catalog, sequence: 5).batch.isEmpty,
                "landscapeLeft was received: back to it is no change")
    }

    @Test("A refused event changes neither state")
    func refusedEventChangesNothing() throws {
        var backlog = AcknowledgedBacklog()
        try backlog.ingest(F.event("badge", nil, 2.0), catalog: Self.catalog)
        _ = backlog.handOver(catalog: Self.catalog, sequence: 1)
        let before = backlog
        #expect(F.refusal { try backlog.ingest(F.event("badge", nil, "many"), catalog: Self.catalog) } != nil)
        #expect(backlog == before)
    }
}
