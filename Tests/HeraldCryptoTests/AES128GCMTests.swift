import HeraldCrypto
import Testing

@Suite("AES-128-GCM")
struct AES128GCMTests {
    let key = [UInt8](repeating: 0, count: 16)
    let nonce = [UInt8](repeating: 0, count: 12)

    @Test("GCM spec test cases 1 and 2 (zero key and nonce): tag only, then one zero block")
    func knownAnswers() throws {
        #expect(HexText.string(try AES128GCM.seal([], key: key, nonce: nonce)) == "58e2fccefa7e3061367f1d57a4e7455a")
        let sealed = try AES128GCM.seal([UInt8](repeating: 0, count: 16), key: key, nonce: nonce)
        #expect(HexText.string(sealed) == "0388dace60b6a392f328c2b971b2fe78" + "ab6e47d42cec13bdf53a67b21257bddf")
        #expect(try AES128GCM.open(sealed, key: key, nonce: nonce) == [UInt8](repeating: 0, count: 16))
        #expect(try AES128GCM.open(HexText.bytes("58e2fccefa7e3061367f1d57a4e7455a"), key: key, nonce: nonce).isEmpty)
    }

    @Test("Seal then open returns the plaintext; the tag is appended")
    func roundTrip() throws {
        let key = Array(1...16).map(UInt8.init)
        let nonce = Array(21...32).map(UInt8.init)
        let plaintext = Array("attack at dawn, or maybe a bit later".utf8)
        let sealed = try AES128GCM.seal(plaintext, key: key, nonce: nonce, authenticating: [9, 9])
        #expect(sealed.count == plaintext.count + 16)
        #expect(try AES128GCM.open(sealed, key: key, nonce: nonce, authenticating: [9, 9]) == plaintext)
    }

    @Test("Open fails on a changed byte, tag, key, nonce or additional data, and on a short input")
    func tampering() throws {
        let plaintext = Array("hello".utf8)
        let sealed = try AES128GCM.seal(plaintext, key: key, nonce: nonce, authenticating: [1])
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x80
            #expect(throws: AES128GCM.Failure.authenticationFailed) {
                try AES128GCM.open(changed, key: key, nonce: nonce, authenticating: [1])
            }
        }
        var otherKey = key
        otherKey[0] = 1
        #expect(throws: AES128GCM.Failure.authenticationFailed) { try AES128GCM.open(sealed, key: otherKey, nonce: nonce, authenticating: [1]) }
        var otherNonce = nonce
        otherNonce[11] = 1
        #expect(throws: AES128GCM.Failure.authenticationFailed) { try AES128GCM.open(sealed, key: key, nonce: otherNonce, authenticating: [1]) }
        #expect(throws: AES128GCM.Failure.authenticationFailed) { try AES128GCM.open(sealed, key: key, nonce: nonce) }
        #expect(throws: AES128GCM.Failure.authenticationFailed) { try AES128GCM.open(Array(sealed.prefix(15)), key: key, nonce: nonce) }
    }

    @Test("Keys and nonces of the wrong length are refused")
    func lengths() {
        #expect(throws: AES128GCM.Failure.invalidKeyLength) { try AES128GCM.seal([1], key: [UInt8](repeating: 0, count: 32), nonce: nonce) }
        #expect(throws: AES128GCM.Failure.invalidNonceLength) { try AES128GCM.seal([1], key: key, nonce: [UInt8](repeating: 0, count: 16)) }
        #expect(throws: AES128GCM.Failure.invalidKeyLength) { try AES128GCM.open([UInt8](repeating: 0, count: 16), key: [], nonce: nonce) }
    }
}
