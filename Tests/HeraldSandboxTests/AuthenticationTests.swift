import Foundation
import HeraldCrypto
import HeraldHTTP2
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Provider tokens and client certificates")
struct AuthenticationTests {
    @Test("a provider token older than an hour is refused as ExpiredProviderToken")
    func expiredTokenRefused() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let stale = try TestKeys.bearer(issuedAt: Date().addingTimeInterval(-3700))
            let response = try await client.send(TestPush(authorization: stale))
            #expect(response.status == 403)
            #expect(response.reason == "ExpiredProviderToken")

            let fiftyNineMinutes = try TestKeys.bearer(issuedAt: Date().addingTimeInterval(-59 * 60))
            #expect(try await client.send(TestPush(authorization: fiftyNineMinutes)).status == 200)
        }
    }

    @Test("forged provider tokens are refused as InvalidProviderToken")
    func forgedTokensRefused() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            // Signed by a key the sandbox does not trust, under the trusted key id.
            let wrongKey = try TestKeys.bearer(key: TestKeys.stranger)
            // Signed by the trusted key, then the claims swapped for another team's.
            let genuine = try ProviderToken.sign(keyID: TestKeys.devKeyID, teamID: TestKeys.teamID, issuedAt: Date(), key: TestKeys.dev)
            let parts = genuine.jwt.split(separator: ".").map(String.init)
            let otherClaims = Base64URL.encode(Array(#"{"iss":"EVILTEAM01","iat":\#(genuine.issuedAt)}"#.utf8))
            let tampered = "bearer \(parts[0]).\(otherClaims).\(parts[2])"
            // Signed by the trusted key, but naming a key id the sandbox does not know.
            let unknownKeyID = try TestKeys.bearer(keyID: "NOSUCHKEY1")
            // Without the signature.
            let unsigned = "bearer \(parts[0]).\(parts[1])."

            for (name, authorization) in [("wrong key", wrongKey), ("tampered claims", tampered),
                                          ("unknown key id", unknownKeyID), ("no signature", unsigned)] {
                let response = try await client.send(TestPush(authorization: authorization))
                #expect(response.status == 403, "\(name)")
                #expect(response.reason == "InvalidProviderToken", "\(name)")
            }
            #expect(sandbox.allInboxes().isEmpty)
        }
    }

    @Test("a client certificate signed by the dev CA authenticates without a provider token")
    func clientCertificateAuth() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox, clientCertificate: true)
            defer { client.close() }
            let response = try await client.send(TestPush(authorization: nil))
            #expect(response.status == 200)
            let entry = try #require(sandbox.inbox(token: deviceToken()).first)
            guard case .certificate(let subject) = entry.credential else {
                Issue.record("expected certificate credentials, got \(entry.credential)")
                return
            }
            #expect(subject.contains("CN=com.example.herald.dev"))
        }
    }

    @Test("a provider token on a certificate connection is still verified")
    func tokenCheckedOnCertificateConnection() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox, clientCertificate: true)
            defer { client.close() }
            let response = try await client.send(TestPush(authorization: try TestKeys.bearer(key: TestKeys.stranger)))
            #expect(response.status == 403)
            #expect(response.reason == "InvalidProviderToken")
        }
    }

    @Test("without a client certificate and without a token the request is MissingProviderToken")
    func neitherCredential() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let response = try await client.send(TestPush(authorization: nil))
            #expect(response.status == 403)
            #expect(response.reason == "MissingProviderToken")
        }
    }
}
