import Foundation
import HeraldCore
import HeraldPush
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Push doctor")
struct PushDoctorTests {
    @Test("The doctor uses the gateway's provider token: ten runs and a push sign one token, not eleven")
    func doctorSharesTheProviderToken() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let app = sandbox.app()
                for _ in 0..<10 {
                    let checks = await gateway.doctor.examine(app)
                    #expect(checks.allSatisfy { $0.outcome == .passed }, "\(checks)")
                }
                let outcome = try #require(await gateway.send([try alert(to: deviceToken(1))], app: app).first)
                #expect(outcome.succeeded)
                let client = try await gateway.client(for: app)
                #expect(client.providerTokens?.renewals == 1, "APNs refuses a key renewed more often than every 20 minutes")
            }
        }
    }

    @Test("The probe's answer in plain words: BadDeviceToken passes; a refused provider token or topic fails, saying what to check")
    func explainsAnswers() {
        let cases: [(String?, Int, Bool, String)] = [
            ("BadDeviceToken", 400, true, "accepted the credentials"),
            ("InvalidProviderToken", 403, false, "check the key id, the team id"),
            ("TopicDisallowed", 400, false, "bundle id"),
            ("BadCertificateEnvironment", 403, false, "certificate"),
            ("connectFailed", 502, false, "cannot connect"),
            ("tlsFailure", 502, false, "TLS handshake failed"),
            ("timeout", 504, false, "no answer in time"),
        ]
        for (reason, status, passes, words) in cases {
            let (passed, detail) = PushDoctor.explain(PushOutcome(token: "t", status: status, reason: reason), topic: "com.example.app")
            #expect(passed == passes, "\(reason ?? "")")
            #expect(detail.contains(words), "\(reason ?? ""): \(detail)")
        }
    }
}
