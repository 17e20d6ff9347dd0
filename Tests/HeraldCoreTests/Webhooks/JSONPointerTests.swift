import Foundation
import HeraldCore
import Testing

/// Decodes JSON text the way the API will hand bodies to templates.
func json(_ text: String) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
}

@Suite("JSON Pointer (RFC 6901)")
struct JSONPointerTests {
    /// RFC 6901 §5's example document.
    let document: JSONValue
    init() throws {
        document = try json(#"{"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}"#)
    }

    @Test("The empty pointer is the whole document")
    func emptyIsWholeDocument() throws {
        #expect(try JSONPointer("").resolve(in: document) == document)
        #expect(try JSONPointer("").tokens.isEmpty)
    }

    @Test("RFC 6901 §5 examples, including the ~0 and ~1 escapes")
    func pointerEscapes() throws {
        let cases: [(String, JSONValue)] = [
            ("/foo", .array([.string("bar"), .string("baz")])), ("/foo/0", .string("bar")), ("/", .number(0)),
            ("/a~1b", .number(1)), ("/c%d", .number(2)), ("/e^f", .number(3)), ("/g|h", .number(4)),
            ("/i\\j", .number(5)), ("/k\"l", .number(6)), ("/ ", .number(7)), ("/m~0n", .number(8)),
        ]
        for (text, expected) in cases {
            #expect(try JSONPointer(text).resolve(in: document) == expected, "\(text)")
        }
        // Decoded in one pass: ~01 is "~1", a key, not "/".
        #expect(try JSONPointer("/~01").tokens == ["~1"])
        #expect(try JSONPointer("/a~1b/m~0n").tokens == ["a/b", "m~n"])
    }

    @Test("description re-escapes, so it round-trips")
    func descriptionRoundTrips() throws {
        for text in ["", "/", "/a~1b", "/m~0n", "/~01", "/foo/0", "//x"] {
            #expect(try JSONPointer(text).description == text)
        }
        #expect(JSONPointer(tokens: ["a/b", "~"]).description == "/a~1b/~0")
    }

    @Test("Array indices: digits without leading zeros, within range; '-' names nothing")
    func pointerArrays() throws {
        let list = try json(#"{"xs": [10, 20, [30, {"y": 40}]]}"#)
        #expect(try JSONPointer("/xs/0").resolve(in: list) == .number(10))
        #expect(try JSONPointer("/xs/2/1/y").resolve(in: list) == .number(40))
        for missing in ["/xs/3", "/xs/-", "/xs/01", "/xs/-1", "/xs/1.0", "/xs/ 1", "/xs/"] {
            #expect(try JSONPointer(missing).resolve(in: list) == nil, "\(missing)")
        }
        // On an object, a digit token is an ordinary key.
        #expect(try JSONPointer("/0").resolve(in: json(#"{"0": true}"#)) == .bool(true))
    }

    @Test("Missing steps resolve to nil: absent key, a step into a scalar, case differs")
    func pointerMissing() throws {
        #expect(try JSONPointer("/nope").resolve(in: document) == nil)
        #expect(try JSONPointer("/foo/0/deeper").resolve(in: document) == nil)
        #expect(try JSONPointer("/FOO").resolve(in: document) == nil)
        // Present but null is not missing.
        #expect(try JSONPointer("/n").resolve(in: json(#"{"n": null}"#)) == .null)
    }

    @Test("Malformed pointers are invalidPointer", arguments: ["foo", "#/foo", "/a~", "/a~2", "/~x"])
    func pointerMalformed(text: String) {
        #expect(throws: HeraldError.self) { try JSONPointer(text) }
        do {
            _ = try JSONPointer(text)
        } catch {
            #expect(error.reason == .invalidPointer && error.kind == .invalid)
            #expect(error.message.contains(text))
        }
    }

    @Test("A pointer encodes as its text and refuses bad text when decoded")
    func pointerCodable() throws {
        let pointer = try JSONPointer("/a~1b/0")
        let data = try JSONEncoder().encode(pointer)
        #expect(String(decoding: data, as: UTF8.self) == #""\/a~1b\/0""# || String(decoding: data, as: UTF8.self) == #""/a~1b/0""#)
        #expect(try JSONDecoder().decode(JSONPointer.self, from: data) == pointer)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONPointer.self, from: Data(#""nope""#.utf8)) }
    }
}
