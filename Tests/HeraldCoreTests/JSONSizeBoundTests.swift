import Foundation
import HeraldCore
import HeraldTestSupport
import Testing

@Suite("The size bound a payload check trusts before encoding")
struct JSONSizeBoundTests {
    /// Strings that escape in every way JSONEncoder escapes: quotes, backslashes, slashes,
    /// control characters, and multi-byte characters (U+2028 among them).
    private static let awkward = ["", "plain", "\"quoted\"", "back\\slash", "a/b/c", "tab\tnew\nline\u{01}\u{1F}",
                                  "é€😀", "\u{2028}\u{2029}", String(repeating: "\u{7F}", count: 9)]

    private static func randomValue(depth: Int, using rng: inout some RandomNumberGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(Bool.random(using: &rng) ? Double(Int.random(in: -1_000_000...1_000_000, using: &rng))
                                                        : Double.random(in: -1e300...1e300, using: &rng))
        case 3, 4: return .string(randomString(using: &rng))
        case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(depth: depth + 1, using: &rng) })
        default:
            var object: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                object[randomString(using: &rng)] = randomValue(depth: depth + 1, using: &rng)
            }
            return .object(object)
        }
    }

    private static func randomString(using rng: inout some RandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in awkward.randomElement(using: &rng)! }.joined()
    }

    @Test("The bound is never below what JSONEncoder writes, for 2,000 random payloads with every kind of escape")
    func neverBelowTheEncoding() throws {
        var rng = SeededGenerator(seed: 37)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for _ in 0..<2000 {
            let value = Self.randomValue(depth: 0, using: &rng)
            let aps = APS(alert: .content(.init(title: Self.randomString(using: &rng), body: Self.randomString(using: &rng))),
                          badge: Int.random(in: 0...99, using: &rng), sound: .named(Self.randomString(using: &rng)),
                          threadId: Self.randomString(using: &rng))
            let exact = try encoder.encode(value).count
            let bound = try #require(JSONSizeBound.bytes(of: value))
            #expect(bound >= exact, "\(value)")
            #expect(try #require(JSONSizeBound.bytes(of: aps)) >= encoder.encode(aps).count)
        }
    }

    @Test("A number the encoder refuses has no bound: the check encodes it and refuses it")
    func nonFiniteNumbers() {
        #expect(JSONSizeBound.bytes(of: JSONValue.number(.infinity)) == nil)
        #expect(JSONSizeBound.bytes(of: [Double.nan]) == nil)
        let custom: [String: JSONValue] = ["x": .number(.nan)]
        #expect(refusal { try APNsPush.checkPayload(type: .alert, aps: APS(alert: .text("hi")), custom: custom) } == "invalidPayload")
    }

    @Test("The payload check refuses exactly what encoding refuses, byte for byte at APNs' limit")
    func checkAgreesAtTheLimit() throws {
        let aps = APS(alert: .text("hi"))
        // The padding that makes the encoded payload exactly 4096 bytes.
        let base = try APNsPush.checkedPayload(type: .alert, aps: aps, custom: ["pad": .string("")]).count
        for padding in [4096 - base - 1, 4096 - base, 4096 - base + 1] {
            let custom: [String: JSONValue] = ["pad": .string(String(repeating: "x", count: padding))]
            let encoded = refusal { _ = try APNsPush.checkedPayload(type: .alert, aps: aps, custom: custom) }
            let checked = refusal { try APNsPush.checkPayload(type: .alert, aps: aps, custom: custom) }
            #expect(encoded == checked)
            #expect((padding > 4096 - base) == (checked == "payloadTooLarge"))
        }
        #expect(refusal { try APNsPush.checkPayload(type: .alert, aps: aps, custom: ["aps": .null]) } == "invalidData")
    }
}
