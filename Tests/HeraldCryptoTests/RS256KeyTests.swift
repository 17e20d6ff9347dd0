import Foundation
import HeraldCrypto
import Testing

/// Runs the openssl command line (as the provider token tests do) for keys and signatures made
/// independently of the code under test.
enum OpenSSLTool {
    static func run(_ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " ")) failed")
        return Array(output)
    }
}

@Suite("RS256 keys")
struct RS256KeyTests {
    /// Generated once: RSA generation takes a noticeable fraction of a second.
    static let key = try! RS256Key.generate()

    @Test("A generated key signs; its private and public PEM read back; the public one verifies")
    func generatedRoundTrip() throws {
        let key = Self.key
        #expect(key.isPrivate && key.bits == 2048)
        let message = Array("header.claims".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 256)
        #expect(key.verify(signature: signature, for: message))

        let privatePEM = try key.privateKeyPEM()
        #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let reread = try RS256Key(pem: privatePEM)
        // PKCS#1 v1.5 is deterministic: the same key gives the same signature.
        #expect(try reread.sign(message) == signature)

        let publicPEM = try key.publicKeyPEM()
        #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let publicKey = try RS256Key(pem: publicPEM)
        #expect(!publicKey.isPrivate)
        #expect(publicKey.verify(signature: signature, for: message))
        #expect(!publicKey.verify(signature: signature, for: Array("header.claimz".utf8)))
        var changed = signature
        changed[0] ^= 1
        #expect(!publicKey.verify(signature: changed, for: message))
        #expect(!publicKey.verify(signature: Array(signature.dropLast()), for: message))
        #expect(throws: OpenSSLError.self) { try publicKey.sign(message) }
        #expect(throws: OpenSSLError.self) { try publicKey.privateKeyPEM() }
    }

    @Test("Signatures match the openssl command line's, and the dev CA certificate's key verifies them")
    func interoperability() throws {
        let pem = try String(contentsOf: DevKeys.certs.appendingPathComponent("dev-ca.key"), encoding: .utf8)
        let message = Array("interop".utf8)
        let path = DevKeys.certs.appendingPathComponent("dev-ca.key").path
        let expected = try OpenSSLTool.run(["dgst", "-sha256", "-sign", path], input: message)
        #expect(try RS256Key(pem: pem).sign(message) == expected)
        let certificate = try String(contentsOf: DevKeys.certs.appendingPathComponent("dev-ca.pem"), encoding: .utf8)
        let fromCertificate = try RS256Key(pem: certificate)
        #expect(!fromCertificate.isPrivate)
        #expect(fromCertificate.verify(signature: expected, for: message))
        // A PKCS#1 (`BEGIN RSA PRIVATE KEY`) file reads as well.
        let pkcs1 = try OpenSSLTool.run(["rsa", "-in", path, "-traditional"])
        #expect(try RS256Key(pem: String(decoding: pkcs1, as: UTF8.self)).sign(message) == expected)
    }

    @Test("EC keys, short RSA keys, encrypted keys and garbage are refused")
    func refused() throws {
        let ec = try String(contentsOf: DevKeys.certs.appendingPathComponent("dev-apns-key.p8"), encoding: .utf8)
        #expect(throws: OpenSSLError.self) { try RS256Key(pem: ec) }
        let short = try OpenSSLTool.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        #expect(throws: OpenSSLError.self) { try RS256Key(pem: String(decoding: short, as: UTF8.self)) }
        #expect(throws: OpenSSLError.self) { try RS256Key.generate(bits: 1024) }
        // Encrypted: refused at once rather than prompting for a passphrase.
        let path = DevKeys.certs.appendingPathComponent("dev-ca.key").path
        let encrypted = try OpenSSLTool.run(["pkey", "-in", path, "-aes256", "-passout", "pass:secret"])
        #expect(String(decoding: encrypted, as: UTF8.self).contains("ENCRYPTED PRIVATE KEY"))
        #expect(throws: OpenSSLError.self) { try RS256Key(pem: String(decoding: encrypted, as: UTF8.self)) }
        #expect(throws: OpenSSLError.self) { try RS256Key(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
    }
}
