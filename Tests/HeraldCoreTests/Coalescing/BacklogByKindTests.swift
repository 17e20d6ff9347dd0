import HeraldCore
import Testing

@Suite("Coalesced backlog by kind")
struct BacklogByKindTests {
    @Test("The backlog by kind counts what a drain would deliver: one per kind and key, nothing for a change that cancelled out")
    func pendingByKind() throws {
        let catalog = try EventCatalog(customKinds: [])
        var queue = DeviceEventQueue()
        for event in [SystemEvent(kind: "batteryLevel", value: .number(0.9)), SystemEvent(kind: "batteryLevel", value: .number(0.8)),
                      SystemEvent(kind: "accessory", key: "a1", value: .string("connected")),
                      SystemEvent(kind: "accessory", key: "a2", value: .string("connected"))] {
            try queue.ingest(event, catalog: catalog)
        }
        #expect(queue.pendingByKind == ["batteryLevel": 1, "accessory": 2])
        #expect(queue.pendingByKind.values.reduce(0, +) == queue.pendingCount)
        _ = queue.drain(catalog: catalog)
        #expect(queue.pendingByKind.isEmpty)
        let backlog = AcknowledgedBacklog(queue: queue)
        #expect(backlog.pendingByKind.isEmpty)
    }
}
