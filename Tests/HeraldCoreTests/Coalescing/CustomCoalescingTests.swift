import HeraldCore
import Testing

private typealias F = CoalescingFixture

@Suite("Net change of custom kinds")
struct CustomCoalescingTests {
    static let catalog = try! EventCatalog(customKinds: [
        CustomKind(name: "mood", rule: .latest),
        CustomKind(name: "badge", rule: .sum),
        CustomKind(name: "changedIds", rule: .union),
        CustomKind(name: "dnd", rule: .toggle),
        CustomKind(name: "perList", rule: .sum, keyed: true),
    ])

    private func drained(_ events: [SystemEvent]) throws -> [CoalescedNotification] {
        try F.drained(events, catalog: Self.catalog)
    }

    @Test("Custom latest behaves like a value kind: final value, nothing when back to the delivered one")
    func latest() throws {
        var queue = try F.queue([F.event("mood", nil, "calm"), F.event("mood", nil, .object(["level": .number(3)]))],
                                catalog: Self.catalog)
        #expect(queue.drain(catalog: Self.catalog)
            == [CoalescedNotification(kind: "mood", value: .object(["level": .number(3)]), count: 2)])
        try queue.ingest(F.event("mood", nil, "angry"), catalog: Self.catalog)
        try queue.ingest(F.event("mood", nil, .object(["level": .number(3)])), catalog: Self.catalog)
        #expect(queue.drain(catalog: Self.catalog).isEmpty)
    }

    @Test("Custom sum delivers the sum of the values since the last delivery")
    func sum() throws {
        var queue = try F.queue([F.event("badge", nil, 3), F.event("badge", nil, 4), F.event("badge", nil, -2)],
                                catalog: Self.catalog)
        #expect(queue.drain(catalog: Self.catalog) == [CoalescedNotification(kind: "badge", value: .number(5), count: 3)])
        // The next sum starts from zero: it is a delta, not a total.
        try queue.ingest(F.event("badge", nil, 1), catalog: Self.catalog)
        #expect(queue.drain(catalog: Self.catalog) == [CoalescedNotification(kind: "badge", value: .number(1), count: 1)])
        #expect(queue.slotCount == 0)
    }

    @Test("Custom sum delivers nothing when the values add up to zero")
    func sumZero() throws {
        #expect(try drained([F.event("badge", nil, 2), F.event("badge", nil, -1), F.event("badge", nil, -1)]).isEmpty)
    }

    @Test("Custom sum refuses an event that would overflow the pending sum (eventSumOverflow)")
    func sumOverflow() throws {
        var queue = try F.queue([F.event("badge", nil, 1.5e308)], catalog: Self.catalog)
        let before = queue
        #expect(F.refusal { try queue.ingest(F.event("badge", nil, 1.5e308), catalog: Self.catalog) } == "eventSumOverflow")
        #expect(queue == before)
    }

    @Test("Custom union delivers the sorted set union of the values since the last delivery")
    func union() throws {
        var queue = try F.queue([
            F.event("changedIds", nil, F.strings("b", "a")), F.event("changedIds", nil, "c"), F.event("changedIds", nil, F.strings("a")),
        ], catalog: Self.catalog)
        #expect(queue.drain(catalog: Self.catalog)
            == [CoalescedNotification(kind: "changedIds", value: F.strings("a", "b", "c"), count: 3)])
        try queue.ingest(F.event("changedIds", nil, "a"), catalog: Self.catalog)
        #expect(queue.drain(catalog: Self.catalog) == [CoalescedNotification(kind: "changedIds", value: F.strings("a"), count: 1)])
    }

    @Test("Custom union delivers nothing when the union is empty")
    func unionEmpty() throws {
        #expect(try drained([F.event("changedIds", nil, F.strings()), F.event("changedIds", nil, F.strings())]).isEmpty)
    }

    @Test("Custom toggle: pairs cancel, delivered only after an odd number of events")
    func toggle() throws {
        for events in 0...5 {
            let batch = try drained(Array(repeating: F.event("dnd"), count: events))
            #expect(batch == (events % 2 == 1 ? [CoalescedNotification(kind: "dnd", count: events)] : []), "\(events) events")
        }
    }

    @Test("A keyed custom kind coalesces each key on its own")
    func keyedCustom() throws {
        let batch = try drained([
            F.event("perList", "inbox", 2), F.event("perList", "archive", 1), F.event("perList", "inbox", 3),
            F.event("perList", "spam", 1), F.event("perList", "spam", -1),
        ])
        #expect(batch == [
            CoalescedNotification(kind: "perList", key: "archive", value: .number(1), count: 1),
            CoalescedNotification(kind: "perList", key: "inbox", value: .number(5), count: 2),
        ])
    }

    @Test("A custom kind the app no longer declares is dropped at the next drain")
    func droppedKind() throws {
        var queue = try F.queue([F.event("badge", nil, 2), F.event("orientation", nil, "faceUp")], catalog: Self.catalog)
        let reduced = try EventCatalog(customKinds: [CustomKind(name: "mood", rule: .latest)])
        #expect(queue.drain(catalog: reduced) == [CoalescedNotification(kind: "orientation", value: .string("faceUp"), count: 1)])
        #expect(queue.slotCount == 1)
    }

    @Test("A custom kind whose rule changed starts its backlog over under the new rule")
    func ruleChanged() throws {
        var queue = try F.queue([F.event("badge", nil, 2), F.event("badge", nil, 2)], catalog: Self.catalog)
        let changed = try EventCatalog(customKinds: [CustomKind(name: "badge", rule: .latest)])
        try queue.ingest(F.event("badge", nil, "seven"), catalog: changed)
        #expect(queue.drain(catalog: changed) == [CoalescedNotification(kind: "badge", value: .string("seven"), count: 1)])
    }
}
