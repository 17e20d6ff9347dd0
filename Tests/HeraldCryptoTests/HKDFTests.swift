import HeraldCrypto
import Testing

@Suite("HKDF-SHA256")
struct HKDFTests {
    @Test("RFC 5869 test case 1: extract then expand to 42 bytes")
    func rfc5869Case1() {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let salt = HexText.bytes("000102030405060708090a0b0c")
        let info = HexText.bytes("f0f1f2f3f4f5f6f7f8f9")
        let prk = HKDFSHA256.extract(salt: salt, inputKeyingMaterial: ikm)
        #expect(HexText.string(prk) == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        let okm = HKDFSHA256.expand(pseudorandomKey: prk, info: info, length: 42)
        #expect(HexText.string(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        #expect(HKDFSHA256.deriveKey(inputKeyingMaterial: ikm, salt: salt, info: info, length: 42) == okm)
    }

    @Test("RFC 5869 test case 3: empty salt and info")
    func rfc5869Case3() {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let prk = HKDFSHA256.extract(salt: [], inputKeyingMaterial: ikm)
        #expect(HexText.string(prk) == "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04")
        #expect(HexText.string(HKDFSHA256.expand(pseudorandomKey: prk, info: [], length: 42))
            == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test("Shorter outputs are prefixes of longer ones; zero bytes is empty")
    func prefixes() {
        let prk = HKDFSHA256.extract(salt: [1, 2, 3], inputKeyingMaterial: [4, 5, 6])
        let long = HKDFSHA256.expand(pseudorandomKey: prk, info: [7], length: 100)
        #expect(HKDFSHA256.expand(pseudorandomKey: prk, info: [7], length: 16) == Array(long.prefix(16)))
        #expect(HKDFSHA256.expand(pseudorandomKey: prk, info: [7], length: 0).isEmpty)
        #expect(HKDFSHA256.expand(pseudorandomKey: prk, info: [7], length: HKDFSHA256.maximumLength).count == 8160)
    }
}
