import Foundation
import HeraldCore
import Testing

private typealias F = CoalescingFixture

@Suite("Delivery order and JSON storage")
struct QueueOrderAndCodingTests {
    static let catalog = try! EventCatalog(customKinds: [
        CustomKind(name: "zoo", rule: .toggle), CustomKind(name: "badge", rule: .sum),
        CustomKind(name: "ids", rule: .union), CustomKind(name: "mood", rule: .latest, keyed: true),
    ])

    static let mixedEvents: [SystemEvent] = [
        F.event("zoo"), F.event("settings", "b", 2), F.event("ids", nil, F.strings("q", "p")),
        F.event("ubiquityIdentity", nil, .null), F.event("settings", "a", .null), F.event("accessory", "z", "connected"),
        F.event("badge", nil, 0.25), F.event("mood", "k2", "x"), F.event("mood", "k1", .object(["n": .number(1)])),
        F.event("significantTimeChange"), F.event("timeZone", nil, "America/New_York"), F.event("accessory", "a", "connected"),
        F.event("orientation", nil, "faceUp"), F.event("locale", nil, "ja_JP"), F.event("screen", "s", "connected"),
        F.event("screenMode", "s", "hd"), F.event("batteryLevel", nil, 0.5), F.event("batteryState", nil, "full"),
        F.event("proximity", nil, false), F.event("protectedData", nil, "available"),
    ]

    @Test("Batches come in kind order (built-ins as listed, then custom by name), then key ascending")
    func stableOrder() throws {
        let expected: [String] = [
            "accessory/a", "accessory/z", "orientation", "significantTimeChange", "timeZone", "batteryLevel", "batteryState",
            "proximity", "protectedData", "screen/s", "screenMode/s", "settings/a", "settings/b", "locale", "ubiquityIdentity",
            "badge", "ids", "mood/k1", "mood/k2", "zoo",
        ]
        func labels(_ batch: [CoalescedNotification]) -> [String] {
            batch.map { note in note.key.map { "\(note.kind)/\($0)" } ?? note.kind }
        }
        #expect(labels(try F.drained(Self.mixedEvents, catalog: Self.catalog)) == expected)
        // The order of arrival does not matter.
        #expect(labels(try F.drained(Self.mixedEvents.reversed(), catalog: Self.catalog)) == expected)
    }

    @Test("A queue survives a JSON round trip: equal, and draining gives the same batch")
    func roundTrip() throws {
        var queue = try F.queue(Self.mixedEvents, catalog: Self.catalog)
        _ = queue.drain(catalog: Self.catalog)  // leaves delivered memory, including a null
        for event in Self.mixedEvents.prefix(12) { try queue.ingest(event, catalog: Self.catalog) }
        try queue.ingest(F.event("ubiquityIdentity", nil, "signed-in"), catalog: Self.catalog)
        try queue.ingest(F.event("badge", nil, 3), catalog: Self.catalog)
        try queue.ingest(F.event("orientation", nil, "portrait"), catalog: Self.catalog)

        var decoded = try F.roundTripped(queue)
        #expect(decoded == queue)
        #expect(try F.json(decoded) == F.json(queue))
        let expected = queue.drain(catalog: Self.catalog)
        #expect(!expected.isEmpty)
        #expect(decoded.drain(catalog: Self.catalog) == expected)
        #expect(decoded == queue)
    }

    @Test("A null last-delivered value stays a value after a round trip, not 'never delivered'")
    func nullMemoryRoundTrip() throws {
        var queue = try F.queue([F.event("ubiquityIdentity", nil, .null)])
        _ = queue.drain(catalog: F.catalog)
        var decoded = try F.roundTripped(queue)
        try decoded.ingest(F.event("ubiquityIdentity", nil, .null), catalog: F.catalog)
        #expect(decoded.drain(catalog: F.catalog).isEmpty)
    }

    @Test("Stored JSON is deterministic and versioned")
    func storedShape() throws {
        var queue = try F.queue([F.event("settings", "b", 1), F.event("significantTimeChange"), F.event("settings", "a", "x")])
        #expect(try F.json(queue) == #"{"clock":0,"slots":["#
            + #"{"backlog":"latest","count":1,"key":"a","kind":"settings","value":"x"},"#
            + #"{"backlog":"latest","count":1,"key":"b","kind":"settings","value":1},"#
            + #"{"backlog":"occurred","count":1,"kind":"significantTimeChange"}],"version":1}"#)
        _ = queue.drain(catalog: F.catalog)
        #expect(try F.json(queue) == #"{"clock":1,"slots":[{"delivered":"x","deliveredAt":1,"key":"a","kind":"settings"},"#
            + #"{"delivered":1,"deliveredAt":1,"key":"b","kind":"settings"}],"version":1}"#)
        // Draining an idle queue changes nothing, not even the clock.
        let idle = queue
        #expect(queue.drain(catalog: F.catalog).isEmpty)
        #expect(queue == idle)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(DeviceEventQueue.self, from: Data(#"{"slots":[],"version":2}"#.utf8))
        }
    }

    @Test("Events and notifications keep an explicit null apart from no value through JSON")
    func nullVersusAbsent() throws {
        let withNull = SystemEvent(kind: "ubiquityIdentity", value: .null)
        let without = SystemEvent(kind: "significantTimeChange")
        #expect(try F.roundTripped(withNull) == withNull)
        #expect(try F.roundTripped(without) == without)
        #expect(try F.json(without) == #"{"kind":"significantTimeChange"}"#)
        let decoded = try JSONDecoder().decode(SystemEvent.self, from: Data(#"{"kind":"x","key":"k","value":null}"#.utf8))
        #expect(decoded == SystemEvent(kind: "x", key: "k", value: .null))
        let notifications = [
            CoalescedNotification(kind: "ubiquityIdentity", value: .null, count: 2),
            CoalescedNotification(kind: "significantTimeChange", count: 3),
            CoalescedNotification(kind: "settings", key: "v", value: .number(0.5), count: 1),
        ]
        #expect(try F.roundTripped(notifications) == notifications)
        #expect(notifications[2].event == SystemEvent(kind: "settings", key: "v", value: .number(0.5)))
    }
}
