import Foundation
import HeraldCore
import Testing

private typealias F = CoalescingFixture

@Suite("Custom kinds: declaring and validating")
struct CustomKindTests {
    @Test("Custom names must be identifiers and must not clash with a built-in kind (invalidCustomKind)", arguments: [
        "orientation", "Orientation", "SETTINGS", "", "9lives", "_score", "has space", "émoji", "a/b",
        String(repeating: "a", count: 65),
    ])
    func refusedNames(name: String) {
        #expect(F.refusal { _ = try EventCatalog(customKinds: [CustomKind(name: name, rule: .latest)]) } == "invalidCustomKind")
    }

    @Test("Identifier-like names, reverse-DNS included, are accepted")
    func acceptedNames() throws {
        let catalog = try EventCatalog(customKinds: [
            CustomKind(name: "score", rule: .sum), CustomKind(name: "com.example.inbox-ids", rule: .union, keyed: true),
            CustomKind(name: "dnd_mode", rule: .toggle), CustomKind(name: String(repeating: "a", count: 64), rule: .latest),
        ])
        #expect(catalog.rule(for: "com.example.inbox-ids") == .union)
        #expect(catalog.isKeyed("com.example.inbox-ids") == true)
    }

    @Test("A name declared twice, even in another case, is refused")
    func duplicates() {
        let kinds = [CustomKind(name: "score", rule: .sum), CustomKind(name: "Score", rule: .latest)]
        #expect(F.refusal { _ = try EventCatalog(customKinds: kinds) } == "invalidCustomKind")
    }

    @Test("An app declares at most 64 custom kinds (tooManyCustomKinds), keeping kinds × keys bounded")
    func tooMany() throws {
        let kinds = (0..<65).map { CustomKind(name: "k\($0)", rule: .toggle) }
        #expect(F.refusal { _ = try EventCatalog(customKinds: kinds) } == "tooManyCustomKinds")
        _ = try EventCatalog(customKinds: Array(kinds.prefix(64)))
    }

    @Test("Custom values follow the rule: latest any JSON, sum a number, union strings, toggle none")
    func values() throws {
        let catalog = try EventCatalog(customKinds: [
            CustomKind(name: "last", rule: .latest), CustomKind(name: "total", rule: .sum),
            CustomKind(name: "ids", rule: .union), CustomKind(name: "flip", rule: .toggle),
        ])
        func reason(_ kind: String, _ value: JSONValue?) -> String? {
            F.refusal { _ = try catalog.validate(F.event(kind, nil, value)) }
        }
        #expect(reason("last", .object(["a": .number(1)])) == nil)
        #expect(reason("last", .null) == nil)
        #expect(reason("last", nil) == "invalidEventValue")
        #expect(reason("total", .number(-2.5)) == nil)
        #expect(reason("total", .string("3")) == "invalidEventValue")
        #expect(reason("total", .number(.infinity)) == "invalidEventValue")
        #expect(reason("ids", .string("a")) == nil)
        #expect(reason("ids", F.strings("a", "b")) == nil)
        #expect(reason("ids", .array([])) == nil)
        #expect(reason("ids", .array([.string("a"), .number(1)])) == "invalidEventValue")
        #expect(reason("ids", .number(1)) == "invalidEventValue")
        #expect(reason("flip", nil) == nil)
        #expect(reason("flip", .null) == nil)
        #expect(reason("flip", .bool(true)) == "unexpectedEventValue")
        // A union value comes back in one canonical shape.
        #expect(try catalog.validate(F.event("ids", nil, "a")).value == F.strings("a"))
    }

    @Test("keyed decides whether custom events need a key, and defaults to false in JSON")
    func keyedDecoding() throws {
        let decoded = try JSONDecoder().decode(CustomKind.self, from: Data(#"{"name":"score","rule":"sum"}"#.utf8))
        #expect(decoded == CustomKind(name: "score", rule: .sum, keyed: false))
        #expect(try F.roundTripped(CustomKind(name: "ids", rule: .union, keyed: true)).keyed)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CustomKind.self, from: Data(#"{"name":"x","rule":"connection"}"#.utf8))
        }
        let catalog = try EventCatalog(customKinds: [CustomKind(name: "perItem", rule: .sum, keyed: true)])
        #expect(F.refusal { _ = try catalog.validate(F.event("perItem", nil, 1)) } == "missingEventKey")
        #expect(F.refusal { _ = try EventCatalog.builtIn.validate(F.event("perItem", "a", 1)) } == "unknownEventKind")
    }
}
