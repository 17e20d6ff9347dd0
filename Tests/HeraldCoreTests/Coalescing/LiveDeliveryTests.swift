import HeraldCore
import Testing

private typealias F = CoalescingFixture

@Suite("Events delivered live move the baseline")
struct LiveDeliveryTests {
    @Test("A value delivered live is the baseline a later backlog is measured against")
    func liveBaseline() throws {
        var queue = DeviceEventQueue()
        try queue.deliveredLive(F.event("orientation", nil, "landscapeLeft"), catalog: F.catalog)
        #expect(queue.isEmpty)
        try queue.ingest(F.event("orientation", nil, "portrait"), catalog: F.catalog)
        try queue.ingest(F.event("orientation", nil, "landscapeLeft"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
    }

    @Test("A live value supersedes an older backlog of the same kind and key")
    func liveSupersedes() throws {
        var queue = try F.queue([F.event("batteryState", nil, "charging"), F.event("settings", "a", 1)])
        try queue.deliveredLive(F.event("batteryState", nil, "full"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog) == [CoalescedNotification(kind: "settings", key: "a", value: .number(1), count: 1)])
        try queue.ingest(F.event("batteryState", nil, "full"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
    }

    @Test("A live connect makes a later disconnect a change; a live disconnect forgets the key")
    func liveConnection() throws {
        var queue = DeviceEventQueue()
        try queue.deliveredLive(F.event("accessory", "acc-1", "connected"), catalog: F.catalog)
        #expect(queue.slotCount == 1)
        try queue.ingest(F.event("accessory", "acc-1", "disconnected"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog)
            == [CoalescedNotification(kind: "accessory", key: "acc-1", value: .string("disconnected"), count: 1)])
        try queue.deliveredLive(F.event("accessory", "acc-1", "connected"), catalog: F.catalog)
        try queue.deliveredLive(F.event("accessory", "acc-1", "disconnected"), catalog: F.catalog)
        #expect(queue.slotCount == 0)
    }

    @Test("Live delivery leaves the backlog of counting kinds alone and stores nothing for them")
    func liveCounting() throws {
        let catalog = try EventCatalog(customKinds: [CustomKind(name: "badge", rule: .sum)])
        var queue = try F.queue([F.event("badge", nil, 2)], catalog: catalog)
        try queue.deliveredLive(F.event("badge", nil, 5), catalog: catalog)
        try queue.deliveredLive(F.event("significantTimeChange"), catalog: catalog)
        #expect(queue.slotCount == 1)
        #expect(queue.drain(catalog: catalog) == [CoalescedNotification(kind: "badge", value: .number(2), count: 1)])
    }

    @Test("An invalid live event is refused and changes nothing")
    func liveInvalid() throws {
        var queue = DeviceEventQueue()
        #expect(F.refusal { try queue.deliveredLive(F.event("orientation", nil, "sideways"), catalog: F.catalog) }
            == "invalidEventValue")
        #expect(queue == DeviceEventQueue())
    }

    @Test("Live delivery into a kind full of backlog is not recorded rather than refused")
    func liveWhenFull() throws {
        var queue = DeviceEventQueue()
        for index in 0..<DeviceEventQueue.maximumKeysPerKind {
            try queue.ingest(F.event("settings", "s\(index)", 1), catalog: F.catalog)
        }
        let before = queue
        try queue.deliveredLive(F.event("settings", "other", 1), catalog: F.catalog)
        #expect(queue == before)
    }
}
