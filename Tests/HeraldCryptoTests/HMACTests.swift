import HeraldCrypto
import Testing

/// Hex helpers for vectors written as RFC 4231 prints them.
enum HexText {
    static func bytes(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        return stride(from: 0, to: utf8.count, by: 2).map { UInt8(String(decoding: utf8[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static func string(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

@Suite("HMAC-SHA256 and constant-time comparison")
struct HMACTests {
    private func mac(_ key: [UInt8], _ message: [UInt8]) -> String {
        HexText.string(HMACSHA256.authenticationCode(key: key, message: message))
    }

    @Test("RFC 4231 test case 1: 20-byte key, short data")
    func rfc4231Case1() {
        #expect(mac([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test("RFC 4231 test case 2: a key shorter than the output")
    func rfc4231Case2() {
        #expect(mac(Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("RFC 4231 test case 3: 50 bytes of 0xdd under 0xaa")
    func rfc4231Case3() {
        #expect(mac([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50))
            == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
    }

    @Test("RFC 4231 test case 4: 25-byte counting key")
    func rfc4231Case4() {
        #expect(mac(Array(1...25), [UInt8](repeating: 0xcd, count: 50))
            == "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
    }

    @Test("RFC 4231 test case 5: truncated to 128 bits")
    func rfc4231Case5() {
        #expect(mac([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8)).prefix(32)
            == "a3b6167473100ee06e0c796c2955552b")
    }

    @Test("RFC 4231 test case 6: a key longer than the block is hashed first")
    func rfc4231Case6() {
        #expect(mac([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("RFC 4231 test case 7: long key and long data")
    func rfc4231Case7() {
        let data = "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
        #expect(mac([UInt8](repeating: 0xaa, count: 131), Array(data.utf8))
            == "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
    }

    @Test("An empty key and empty message still give the standard code")
    func emptyKeyAndMessage() {
        #expect(mac([], []) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
        #expect(HMACSHA256.authenticationCode(key: [], message: []).count == HMACSHA256.byteCount)
    }

    @Test("Constant-time equality: equal, one byte different, different lengths, empty")
    func constantTimeEquals() {
        let code = HMACSHA256.authenticationCode(key: Array("k".utf8), message: Array("m".utf8))
        var altered = code
        altered[31] ^= 1
        #expect(ConstantTime.equals(code, code))
        #expect(!ConstantTime.equals(code, altered))
        #expect(!ConstantTime.equals(code, Array(code.prefix(31))))
        #expect(!ConstantTime.equals([], code))
        #expect(ConstantTime.equals([], []))
    }
}
