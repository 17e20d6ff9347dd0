import Foundation
import HeraldCore
import Testing

private typealias F = CoalescingFixture

@Suite("Queue memory is bounded by kinds × keys")
struct QueueBoundsTests {
    @Test("A million events over five kinds keep at most five slots")
    func millionEvents() throws {
        let catalog = try EventCatalog(customKinds: [
            CustomKind(name: "hits", rule: .sum), CustomKind(name: "flip", rule: .toggle),
        ])
        let orientations = EventKind.orientations.map(JSONValue.string)
        let events: [SystemEvent] = [
            F.event("significantTimeChange"), F.event("hits", nil, 1), F.event("flip"),
            F.event("proximity", nil, true), F.event("orientation", nil, "portrait"),
        ]
        var queue = DeviceEventQueue()
        for index in 0..<1_000_000 {
            var event = events[index % events.count]
            if event.kind == "orientation" { event.value = orientations[(index / 5) % orientations.count] }
            if event.kind == "proximity" { event.value = .bool(index % 2 == 0) }
            try queue.ingest(event, catalog: catalog)
            if index % 100_000 == 0 { #expect(queue.slotCount <= 5) }
        }
        #expect(queue.slotCount <= 5)
        #expect(queue.pendingEventCount == 1_000_000)
        let batch = queue.drain(catalog: catalog)
        #expect(batch.map(\.kind) == ["orientation", "significantTimeChange", "proximity", "hits"])
        #expect(batch.first { $0.kind == "hits" }?.value == .number(200_000))
        #expect(batch.allSatisfy { $0.count == 200_000 })
        #expect(queue.slotCount <= 5)
    }

    @Test("Endless new keys are refused once a kind holds 256 keys with a backlog (tooManyEventKeys)")
    func keyCap() throws {
        var queue = DeviceEventQueue()
        for index in 0..<DeviceEventQueue.maximumKeysPerKind {
            try queue.ingest(F.event("settings", "s\(index)", Double(index)), catalog: F.catalog)
        }
        let before = queue
        #expect(F.refusal { try queue.ingest(F.event("settings", "one-too-many", 1), catalog: F.catalog) } == "tooManyEventKeys")
        #expect(queue == before)
        // Existing keys still take events, and other kinds have their own room.
        try queue.ingest(F.event("settings", "s0", "changed"), catalog: F.catalog)
        try queue.ingest(F.event("screenMode", "ext", "4k"), catalog: F.catalog)
        #expect(queue.slotCount == DeviceEventQueue.maximumKeysPerKind + 1)
    }

    @Test("A full kind makes room by forgetting the key delivered longest ago, at worst a redundant notification later")
    func keyCapForgetsMemory() throws {
        var queue = DeviceEventQueue()
        let keys = (0..<DeviceEventQueue.maximumKeysPerKind).map { String(format: "s%03d", $0) }
        for key in keys.suffix(128) { try queue.ingest(F.event("settings", key, 1), catalog: F.catalog) }
        _ = queue.drain(catalog: F.catalog)
        for key in keys.prefix(128) { try queue.ingest(F.event("settings", key, 1), catalog: F.catalog) }
        _ = queue.drain(catalog: F.catalog)
        #expect(queue.slotCount == DeviceEventQueue.maximumKeysPerKind)
        try queue.ingest(F.event("settings", "new", 1), catalog: F.catalog)
        #expect(queue.slotCount == DeviceEventQueue.maximumKeysPerKind)
        // s128 was delivered first, so it was forgotten: its old value counts as a change again.
        try queue.ingest(F.event("settings", "s000", 1), catalog: F.catalog)
        try queue.ingest(F.event("settings", "s128", 1), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).map(\.key) == ["new", "s128"])
        #expect(queue.slotCount == DeviceEventQueue.maximumKeysPerKind)
    }

    @Test("A union's pending set holds at most 1024 members (tooManyUnionMembers)")
    func unionCap() throws {
        let catalog = try EventCatalog(customKinds: [CustomKind(name: "ids", rule: .union)])
        var queue = DeviceEventQueue()
        let members = (0..<DeviceEventQueue.maximumUnionMembers).map { "id\($0)" }
        try queue.ingest(F.event("ids", nil, .array(members.map(JSONValue.string))), catalog: catalog)
        // Members already in the set cost nothing.
        try queue.ingest(F.event("ids", nil, "id7"), catalog: catalog)
        let before = queue
        #expect(F.refusal { try queue.ingest(F.event("ids", nil, "one-more"), catalog: catalog) } == "tooManyUnionMembers")
        #expect(queue == before)
        let value = queue.drain(catalog: catalog).first?.value
        guard case .array(let delivered)? = value else { Issue.record("no union delivered"); return }
        #expect(delivered.count == DeviceEventQueue.maximumUnionMembers)
    }
}
