import Foundation
import HeraldCore
import HeraldPush
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Provider tokens: one per signing key across apps and settings")
struct ProviderTokenSharingTests {
    @Test("Two apps on one key push through one gateway with one provider token, signed once")
    func appsOnOneKeyShareAToken() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let apps = ["com.example.one", "com.example.two"].map { App(id: $0, push: sandbox.settings()) }
                for (index, app) in apps.enumerated() {
                    let outcomes = await gateway.send([try alert(to: deviceToken(700 + index))], app: app)
                    #expect(outcomes.first?.status == 200, "\(app.id): \(outcomes)")
                }
                let first = try await gateway.client(for: apps[0])
                let second = try await gateway.client(for: apps[1])
                #expect(first !== second, "each app has its own client")
                let tokens = try #require(first.providerTokens)
                #expect(tokens === second.providerTokens, "and both sign with the key's one source")
                #expect(tokens.renewals == 1)
            }
        }
    }

    @Test("A settings change that keeps the key replaces the client but keeps the token")
    func settingsChangeKeepsTheToken() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                var app = sandbox.app()
                #expect(await gateway.send([try alert(to: deviceToken(710))], app: app).first?.status == 200)
                let before = try await gateway.client(for: app)
                let token = try #require(before.providerTokens).token(now: Date())
                app.push?.environment = "https://127.0.0.1:\(sandbox.port + 1)"
                let after = try await gateway.client(for: app)
                #expect(after !== before, "new settings, new client")
                #expect(after.providerTokens === before.providerTokens)
                #expect(try after.providerTokens?.token(now: Date()) == token)
                #expect(after.providerTokens?.renewals == 1)
            }
        }
    }
}
