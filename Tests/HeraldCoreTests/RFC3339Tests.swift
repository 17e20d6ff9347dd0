import Foundation
import HeraldCore
import Testing

@Suite("RFC 3339 instants")
struct RFC3339Tests {
    @Test("Z, offsets and fractions parse to the same instant")
    func parses() {
        let expected = Date(timeIntervalSince1970: 1_796_106_600)
        #expect(RFC3339.instant(from: "2026-12-01T06:30:00Z") == expected)
        #expect(RFC3339.instant(from: "2026-12-01T07:30:00+01:00") == expected)
        #expect(RFC3339.instant(from: "2026-11-30T21:00:00-09:30") == expected)
        #expect(RFC3339.instant(from: "2026-12-01T06:30Z") == expected)
        #expect(RFC3339.instant(from: "2026-12-01T06:30:00.250Z") == expected.addingTimeInterval(0.25))
    }

    @Test("A date-time without Z or an offset is not an instant", arguments: [
        "2026-12-01T06:30:00", "2026-12-01", "2026-12-01T06:30:00+1:00", "2026-12-01T06:30:00+24:00", "garbage",
    ])
    func rejects(text: String) {
        #expect(RFC3339.instant(from: text) == nil)
    }

    @Test("Output is UTC with Z, with milliseconds only when present")
    func formats() {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_796_106_600)) == "2026-12-01T06:30:00Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_796_106_600.5)) == "2026-12-01T06:30:00.500Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }
}
