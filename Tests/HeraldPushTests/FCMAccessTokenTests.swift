import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import HeraldPush
import HeraldSandbox
import HeraldTestSupport
import Testing

// DESIGN.md, FCM HTTP v1: "an OAuth 2.0 access token from the service account's token_uri (an RS256
// JWT assertion, scope firebase.messaging). It is cached until shortly before it expires and shared
// by every app on that account."

/// FCM settings for the dev service account, its token endpoint and FCM the sandbox's.
private func settings(_ sandbox: SandboxGateway) throws -> FCMSettings {
    var account = try FCMSettings.ServiceAccount.parse(
        try Data(contentsOf: URL(fileURLWithPath: TestCertificates.path("dev-fcm-service-account.json"))))
    let origin = "https://127.0.0.1:\(sandbox.port)"
    account.tokenURI = origin + "/token"
    return FCMSettings(serviceAccount: .content(account), endpoint: origin, caFile: TestCertificates.path("dev-ca.pem"))
}

private func message(to token: String) throws -> FCMMessage {
    try FCMMessage(token: token, push: ChannelPush(type: .alert, aps: APS(alert: .text("hello")), custom: [:]), now: Date())
}

@Suite("FCM access tokens")
struct FCMAccessTokenTests {
    @Test("Two apps on one service account share one access token, fetched once and reused for later sends")
    func sharedAndCached() async throws {
        try await withSandbox { sandbox in
            let loops = HTTP2EventLoops(count: 1, name: "fcm test")
            let sources = OAuthTokenSources()
            let first = try FCMClient(appID: "com.example.one", settings: try settings(sandbox), tokenSources: sources, loops: loops)
            let second = try FCMClient(appID: "com.example.two", settings: try settings(sandbox), tokenSources: sources, loops: loops)
            for round in 0..<3 {
                #expect(await first.send([try message(to: "one-\(round)")], timeout: .seconds(10)).allSatisfy { $0.succeeded })
                #expect(await second.send([try message(to: "two-\(round)")], timeout: .seconds(10)).allSatisfy { $0.succeeded })
            }
            #expect(sources.fetched == 1, "one token for the account, not one per app or send")
            let (one, two) = (try await first.accessToken(), try await second.accessToken())
            #expect(one == two)
            await first.close()
            await second.close()
            await loops.shutdown()
        }
    }

    @Test("A 401 renews the access token once for every message of the send, and they are delivered")
    func unauthorizedRenewsOnce() async throws {
        try await withSandbox { sandbox in
            let loops = HTTP2EventLoops(count: 1, name: "fcm test")
            let sources = OAuthTokenSources()
            let client = try FCMClient(appID: "com.example.one", settings: try settings(sandbox), tokenSources: sources, loops: loops)
            #expect(await client.send([try message(to: "warm")], timeout: .seconds(10)).allSatisfy { $0.succeeded })
            let before = try await client.accessToken()
            sandbox.revokeFCMAccessTokens()
            let outcomes = await client.send(try (0..<50).map { try message(to: "after-\($0)") }, timeout: .seconds(10))
            #expect(outcomes.allSatisfy { $0.succeeded }, "\(outcomes.filter { !$0.succeeded }.map(\.status))")
            #expect(sources.fetched == 2, "fifty 401s renewed the token once")
            #expect(try await client.accessToken() != before)
            await client.close()
            await loops.shutdown()
        }
    }

    @Test("A token endpoint that refuses the assertion fails the send as oauthTokenRefused, not as a transport fault")
    func refusedAssertion() async throws {
        try await withSandbox { sandbox in
            let loops = HTTP2EventLoops(count: 1, name: "fcm test")
            var stranger = try settings(sandbox)
            guard case .content(var account) = stranger.serviceAccount else {
                Issue.record("the sandbox's service account is not inline content")
                return
            }
            account.clientEmail = "stranger@example.iam.gserviceaccount.com"
            account.privateKey = try RS256Key.generate().privateKeyPEM()
            stranger.serviceAccount = .content(account)
            let client = try FCMClient(appID: "com.example.stranger", settings: stranger, loops: loops)
            let outcome = await client.send([try message(to: "x")], timeout: .seconds(10))[0]
            #expect(outcome.status == 401)
            #expect(outcome.reason == FCMReason.oauthTokenRefused)
            await client.close()
            await loops.shutdown()
        }
    }
}
