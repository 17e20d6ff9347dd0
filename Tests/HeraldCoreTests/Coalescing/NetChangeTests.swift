import HeraldCore
import Testing

private typealias F = CoalescingFixture

@Suite("Net change of built-in kinds")
struct NetChangeTests {
    @Test("Value kind: only the final value is delivered, with the count of events it stands for")
    func finalValue() throws {
        let batch = try F.drained([
            F.event("orientation", nil, "portrait"), F.event("orientation", nil, "landscapeLeft"),
            F.event("orientation", nil, "faceUp"), F.event("orientation", nil, "landscapeRight"),
        ])
        #expect(batch == [CoalescedNotification(kind: "orientation", value: .string("landscapeRight"), count: 4)])
    }

    @Test("Value kind: a final value equal to the last delivered one delivers nothing (portrait→landscape→portrait)")
    func backToDelivered() throws {
        var queue = try F.queue([F.event("orientation", nil, "portrait")])
        #expect(queue.drain(catalog: F.catalog).count == 1)
        try queue.ingest(F.event("orientation", nil, "landscapeLeft"), catalog: F.catalog)
        try queue.ingest(F.event("orientation", nil, "portrait"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
        #expect(queue.isEmpty)
    }

    @Test("Value kind: a kind never delivered has no baseline, so any final value is delivered")
    func noBaseline() throws {
        #expect(try F.drained([F.event("proximity", nil, false)])
            == [CoalescedNotification(kind: "proximity", value: .bool(false), count: 1)])
    }

    @Test("Value kinds: every latest-rule kind cancels when it returns to the delivered value", arguments: [
        (F.event("batteryLevel", nil, 0.5), F.event("batteryLevel", nil, 0.4)),
        (F.event("batteryState", nil, "charging"), F.event("batteryState", nil, "full")),
        (F.event("proximity", nil, true), F.event("proximity", nil, false)),
        (F.event("protectedData", nil, "available"), F.event("protectedData", nil, "unavailable")),
        (F.event("screenMode", "ext-1", "720p"), F.event("screenMode", "ext-1", "1080p")),
        (F.event("locale", nil, "en_US"), F.event("locale", nil, "fr_FR")),
        (F.event("ubiquityIdentity", nil, "token-1"), F.event("ubiquityIdentity", nil, .null)),
        (F.event("timeZone", nil, "Europe/Paris"), F.event("timeZone", nil, "Asia/Tokyo")),
    ])
    func everyValueKindCancels(delivered: SystemEvent, other: SystemEvent) throws {
        var queue = try F.queue([delivered])
        #expect(queue.drain(catalog: F.catalog).map(\.value) == [delivered.value])
        try queue.ingest(other, catalog: F.catalog)
        try queue.ingest(delivered, catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
        try queue.ingest(other, catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).map(\.value) == [other.value])
    }

    @Test("Signing out of iCloud is delivered as a null value, and a missing value means the same")
    func ubiquitySignOut() throws {
        var queue = try F.queue([F.event("ubiquityIdentity", nil, "token-1")])
        _ = queue.drain(catalog: F.catalog)
        try queue.ingest(F.event("ubiquityIdentity"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog) == [CoalescedNotification(kind: "ubiquityIdentity", value: .null, count: 1)])
        try queue.ingest(F.event("ubiquityIdentity", nil, .null), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
    }

    @Test("Screen mode coalesces per screen id")
    func screenModePerKey() throws {
        let batch = try F.drained([
            F.event("screenMode", "ext-2", "720p"), F.event("screenMode", "ext-1", "4k"), F.event("screenMode", "ext-2", "1080p"),
        ])
        #expect(batch == [
            CoalescedNotification(kind: "screenMode", key: "ext-1", value: .string("4k"), count: 1),
            CoalescedNotification(kind: "screenMode", key: "ext-2", value: .string("1080p"), count: 2),
        ])
    }

    @Test("Accessory: a connect then a disconnect of the same id cancels out (never-delivered means disconnected)")
    func connectDisconnectCancels() throws {
        var queue = try F.queue([F.event("accessory", "acc-1", "connected"), F.event("accessory", "acc-1", "disconnected")])
        #expect(queue.isEmpty)
        #expect(queue.pendingEventCount == 2)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
        // A disconnected key is the same as a key never seen: nothing is remembered.
        #expect(queue.slotCount == 0)
    }

    @Test("Accessory: different ids are independent")
    func idsIndependent() throws {
        let batch = try F.drained([
            F.event("accessory", "acc-1", "connected"), F.event("accessory", "acc-2", "connected"),
            F.event("accessory", "acc-1", "disconnected"),
        ])
        #expect(batch == [CoalescedNotification(kind: "accessory", key: "acc-2", value: .string("connected"), count: 1)])
    }

    @Test("Accessory: a disconnect then a reconnect of an accessory the client knows as connected cancels out")
    func disconnectReconnectCancels() throws {
        var queue = try F.queue([F.event("accessory", "acc-1", "connected")])
        #expect(queue.drain(catalog: F.catalog).count == 1)
        try queue.ingest(F.event("accessory", "acc-1", "disconnected"), catalog: F.catalog)
        try queue.ingest(F.event("accessory", "acc-1", "connected"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
        try queue.ingest(F.event("accessory", "acc-1", "disconnected"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog)
            == [CoalescedNotification(kind: "accessory", key: "acc-1", value: .string("disconnected"), count: 1)])
        #expect(queue.slotCount == 0)
    }

    @Test("Screen: connect and disconnect follow the same per-id rule as accessories")
    func screens() throws {
        let batch = try F.drained([
            F.event("screen", "b", "connected"), F.event("screen", "a", "connected"), F.event("screen", "b", "disconnected"),
            F.event("screen", "c", "disconnected"),
        ])
        #expect(batch == [CoalescedNotification(kind: "screen", key: "a", value: .string("connected"), count: 1)])
    }

    @Test("Settings: the final value of each setting that changed, one notification per setting")
    func settingsFinalValues() throws {
        let batch = try F.drained([
            F.event("settings", "volume", 0.2), F.event("settings", "theme", "dark"), F.event("settings", "volume", 0.7),
        ])
        #expect(batch == [
            CoalescedNotification(kind: "settings", key: "theme", value: .string("dark"), count: 1),
            CoalescedNotification(kind: "settings", key: "volume", value: .number(0.7), count: 2),
        ])
    }

    @Test("Settings: a setting changed back to its last delivered value yields nothing")
    func settingChangedBack() throws {
        var queue = try F.queue([F.event("settings", "volume", 0.5), F.event("settings", "theme", "light")])
        #expect(queue.drain(catalog: F.catalog).count == 2)
        try queue.ingest(F.event("settings", "volume", 0.9), catalog: F.catalog)
        try queue.ingest(F.event("settings", "volume", 0.5), catalog: F.catalog)
        try queue.ingest(F.event("settings", "theme", "dark"), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog)
            == [CoalescedNotification(kind: "settings", key: "theme", value: .string("dark"), count: 1)])
    }

    @Test("Settings compare structured values by content, not by key order")
    func settingsStructured() throws {
        var queue = try F.queue([F.event("settings", "prefs", .object(["a": .number(1), "b": .bool(true)]))])
        _ = queue.drain(catalog: F.catalog)
        try queue.ingest(F.event("settings", "prefs", .object(["b": .bool(true), "a": .number(1)])), catalog: F.catalog)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
    }

    @Test("Significant time change: delivered once if any occurred, with count = how many")
    func significantTimeChange() throws {
        var queue = try F.queue(Array(repeating: F.event("significantTimeChange"), count: 3))
        #expect(queue.drain(catalog: F.catalog) == [CoalescedNotification(kind: "significantTimeChange", count: 3)])
        #expect(queue.drain(catalog: F.catalog).isEmpty)
        #expect(queue.slotCount == 0)
    }

    @Test("Count includes the events that cancelled out inside the delivered net change")
    func countIncludesCancelled() throws {
        var queue = try F.queue([F.event("batteryState", nil, "unplugged")])
        _ = queue.drain(catalog: F.catalog)
        for state in ["charging", "unplugged", "charging", "unplugged", "full"] {
            try queue.ingest(F.event("batteryState", nil, .string(state)), catalog: F.catalog)
        }
        #expect(queue.pendingEventCount == 5)
        #expect(queue.drain(catalog: F.catalog) == [CoalescedNotification(kind: "batteryState", value: .string("full"), count: 5)])
    }

    @Test("A drain empties the backlog, keeps only what later backlogs are measured against")
    func drainEmpties() throws {
        var queue = try F.queue([
            F.event("orientation", nil, "portrait"), F.event("significantTimeChange"), F.event("accessory", "x", "connected"),
        ])
        #expect(!queue.isEmpty)
        #expect(queue.pendingCount == 3)
        #expect(queue.drain(catalog: F.catalog).count == 3)
        #expect(queue.isEmpty)
        #expect(queue.pendingCount == 0)
        #expect(queue.pendingEventCount == 0)
        #expect(queue.drain(catalog: F.catalog).isEmpty)
        // orientation and the connected accessory are remembered; the time change is not.
        #expect(queue.slotCount == 2)
    }

    @Test("A refused event changes nothing")
    func refusedChangesNothing() throws {
        let before = try F.queue([F.event("orientation", nil, "portrait"), F.event("settings", "a", 1.0)])
        var queue = before
        for bad in [F.event("orientation", nil, "sideways"), F.event("nope", nil, 1.0), F.event("settings", nil, 1.0)] {
            #expect(F.refusal { try queue.ingest(bad, catalog: F.catalog) } != nil)
        }
        #expect(queue == before)
    }

    @Test("Preview shows the batch a drain would deliver without delivering it")
    func preview() throws {
        var queue = try F.queue([F.event("locale", nil, "de_DE")])
        let before = queue
        let preview = queue.preview(catalog: F.catalog)
        #expect(queue == before)
        #expect(queue.drain(catalog: F.catalog) == preview)
    }
}
