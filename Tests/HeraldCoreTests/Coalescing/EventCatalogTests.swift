import HeraldCore
import Testing

private typealias F = CoalescingFixture

@Suite("Event catalog: validating what devices report")
struct EventCatalogTests {
    @Test("Every built-in kind accepts its documented values", arguments: [
        F.event("accessory", "acc-1", "connected"),
        F.event("accessory", "acc-1", "disconnected"),
        F.event("orientation", nil, "portraitUpsideDown"),
        F.event("orientation", nil, "faceDown"),
        F.event("significantTimeChange"),
        F.event("timeZone", nil, "Europe/Paris"),
        F.event("timeZone", nil, "UTC"),
        F.event("batteryLevel", nil, 0),
        F.event("batteryLevel", nil, 0.35),
        F.event("batteryLevel", nil, 1),
        F.event("batteryState", nil, "charging"),
        F.event("proximity", nil, true),
        F.event("protectedData", nil, "unavailable"),
        F.event("screen", "screen-2", "connected"),
        F.event("screenMode", "screen-2", "1920x1080@60"),
        F.event("settings", "volume", 0.8),
        F.event("settings", "theme", .object(["name": .string("dark"), "contrast": .array([.number(1), .number(2)])])),
        F.event("settings", "cleared", .null),
        F.event("locale", nil, "fr_FR"),
        F.event("ubiquityIdentity", nil, "token-abc"),
        F.event("ubiquityIdentity", nil, .null),
    ])
    func acceptsBuiltIns(event: SystemEvent) throws {
        #expect(try F.catalog.validate(event).kind == event.kind)
    }

    @Test("A kind that is neither built-in nor declared is refused as unknownEventKind")
    func unknownKind() {
        #expect(F.refusal { _ = try F.catalog.validate(F.event("gyroscope", nil, 1)) } == "unknownEventKind")
        // Kinds are case-sensitive names.
        #expect(F.refusal { _ = try F.catalog.validate(F.event("Orientation", nil, "portrait")) } == "unknownEventKind")
    }

    @Test("Values outside a kind's domain are refused as invalidEventValue", arguments: [
        F.event("accessory", "acc-1", "plugged"),
        F.event("accessory", "acc-1", true),
        F.event("orientation", nil, "sideways"),
        F.event("orientation", nil, 1),
        F.event("orientation"),
        F.event("timeZone", nil, "Mars/Olympus"),
        F.event("timeZone", nil, "CEST"),
        F.event("timeZone", nil, 3600),
        F.event("batteryLevel", nil, 1.01),
        F.event("batteryLevel", nil, -0.5),
        F.event("batteryLevel", nil, "full"),
        F.event("batteryLevel", nil, .number(.nan)),
        F.event("batteryState", nil, "discharging"),
        F.event("proximity", nil, "near"),
        F.event("proximity", nil, 1),
        F.event("protectedData", nil, true),
        F.event("screen", "screen-2", "on"),
        F.event("screenMode", "screen-2", 60),
        F.event("settings", "volume"),
        F.event("settings", "volume", .array([.number(.infinity)])),
        F.event("locale", nil, "fr FR"),
        F.event("locale", nil, ""),
        F.event("ubiquityIdentity", nil, 42),
    ])
    func refusesBadValues(event: SystemEvent) {
        #expect(F.refusal { _ = try F.catalog.validate(event) } == "invalidEventValue")
    }

    @Test("Keyed kinds need a key (missingEventKey); the others refuse one (unexpectedEventKey)")
    func keys() {
        for kind in ["accessory", "screen"] {
            #expect(F.refusal { _ = try F.catalog.validate(F.event(kind, nil, "connected")) } == "missingEventKey")
        }
        #expect(F.refusal { _ = try F.catalog.validate(F.event("screenMode", nil, "720p")) } == "missingEventKey")
        #expect(F.refusal { _ = try F.catalog.validate(F.event("settings", nil, 1)) } == "missingEventKey")
        #expect(F.refusal { _ = try F.catalog.validate(F.event("orientation", "main", "portrait")) } == "unexpectedEventKey")
        #expect(F.refusal { _ = try F.catalog.validate(F.event("significantTimeChange", "x")) } == "unexpectedEventKey")
        #expect(F.refusal { _ = try F.catalog.validate(F.event("accessory", "", "connected")) } == "invalidEventKey")
        let long = String(repeating: "k", count: 201)
        #expect(F.refusal { _ = try F.catalog.validate(F.event("settings", long, 1)) } == "invalidEventKey")
    }

    @Test("A valueless kind refuses a value (unexpectedEventValue) and reads null as none")
    func valueless() throws {
        #expect(F.refusal { _ = try F.catalog.validate(F.event("significantTimeChange", nil, true)) } == "unexpectedEventValue")
        #expect(try F.catalog.validate(F.event("significantTimeChange", nil, .null)).value == nil)
    }

    @Test("A missing ubiquity identity is the signed-out null, so both compare equal")
    func ubiquityNull() throws {
        #expect(try F.catalog.validate(F.event("ubiquityIdentity")).value == .null)
        #expect(try F.catalog.validate(F.event("ubiquityIdentity", nil, .null)).value == .null)
    }

    @Test("Kind order: built-ins in the documented order, then custom kinds by name")
    func kindOrder() throws {
        let catalog = try EventCatalog(customKinds: [
            CustomKind(name: "zeta", rule: .toggle),
            CustomKind(name: "alpha", rule: .sum),
            CustomKind(name: "Mid", rule: .latest),
        ])
        #expect(catalog.kindOrder == [
            "accessory", "orientation", "significantTimeChange", "timeZone", "batteryLevel", "batteryState",
            "proximity", "protectedData", "screen", "screenMode", "settings", "locale", "ubiquityIdentity",
            "Mid", "alpha", "zeta",
        ])
        #expect(EventCatalog.builtIn.kindOrder == EventKind.allCases.map(\.rawValue))
        #expect(catalog.customKinds.map(\.name) == ["Mid", "alpha", "zeta"])
    }

    @Test("Each built-in kind folds by its documented rule")
    func builtInRules() {
        let catalog = EventCatalog.builtIn
        #expect(catalog.rule(for: "accessory") == .connection)
        #expect(catalog.rule(for: "screen") == .connection)
        #expect(catalog.rule(for: "significantTimeChange") == .occurrence)
        for kind in ["orientation", "timeZone", "batteryLevel", "batteryState", "proximity", "protectedData",
                     "screenMode", "settings", "locale", "ubiquityIdentity"] {
            #expect(catalog.rule(for: kind) == .latest, "\(kind)")
        }
        #expect(catalog.rule(for: "nope") == nil)
        #expect(catalog.isKeyed("settings") == true)
        #expect(catalog.isKeyed("locale") == false)
    }
}
