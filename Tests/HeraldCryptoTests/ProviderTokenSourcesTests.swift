import Foundation
import HeraldCrypto
import Testing

@Suite("Provider token sources: one per signing key")
struct ProviderTokenSourcesTests {
    static let pem = try! String(contentsOf: DevKeys.certs.appendingPathComponent("dev-apns-key.p8"), encoding: .utf8)

    /// A second EC P-256 key, made by the openssl command line for this test.
    static func otherKeyPEM() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl genpkey failed")
        return String(decoding: data, as: UTF8.self)
    }

    @Test("The same team, key id and key get the same source, so its token is signed once")
    func sameKeySharesOneSource() throws {
        let sources = ProviderTokenSources()
        let first = try sources.source(teamID: "TEAM123456", keyID: "ABC123DEFG", pem: Self.pem)
        let second = try sources.source(teamID: "TEAM123456", keyID: "ABC123DEFG", pem: Self.pem)
        #expect(first === second)
        let now = Date()
        #expect(try first.token(now: now) == second.token(now: now.addingTimeInterval(60)))
        #expect(first.renewals == 1)
        #expect(sources.count == 1)
    }

    @Test("Another key id, another team, or another key under the same id gets a source of its own")
    func otherKeysGetTheirOwn() throws {
        let sources = ProviderTokenSources()
        let base = try sources.source(teamID: "TEAM123456", keyID: "ABC123DEFG", pem: Self.pem)
        let otherID = try sources.source(teamID: "TEAM123456", keyID: "ZZZ123DEFG", pem: Self.pem)
        let otherTeam = try sources.source(teamID: "TEAM999999", keyID: "ABC123DEFG", pem: Self.pem)
        let replaced = try sources.source(teamID: "TEAM123456", keyID: "ABC123DEFG", pem: try Self.otherKeyPEM())
        #expect(base !== otherID && base !== otherTeam && base !== replaced)
        #expect(sources.count == 4)
    }

    @Test("A key that is not EC P-256 is refused and nothing is kept")
    func badKeyIsRefused() {
        let sources = ProviderTokenSources()
        #expect(throws: (any Error).self) { try sources.source(teamID: "TEAM123456", keyID: "ABC123DEFG", pem: "not a key") }
        #expect(sources.count == 0)
    }

    @Test("TooManyProviderTokenUpdates refusals are counted on the source")
    func refusalsAreCounted() throws {
        let source = try ProviderTokenSources().source(teamID: "TEAM123456", keyID: "ABC123DEFG", pem: Self.pem)
        source.refusedAsTooFrequent()
        source.refusedAsTooFrequent()
        #expect(source.refusalsAsTooFrequent == 2)
    }
}
