import Foundation
import HeraldCore
import HeraldHTTP2
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("Fault injection")
struct FaultInjectionTests {
    @Test("an unregistered token is answered 410 Unregistered with a millisecond timestamp")
    func unregisteredTokenGets410() async throws {
        let token = deviceToken(0x41)
        try await withSandbox(faults: SandboxFaults(unregistered: [token.uppercased()])) { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            let response = try await client.send(TestPush(token: token, authorization: try TestKeys.bearer()))
            let after = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(response.status == 410)
            #expect(response.reason == "Unregistered")
            let timestamp = try #require((response.json["timestamp"] as? NSNumber)?.int64Value)
            #expect(timestamp >= before && timestamp <= after, "milliseconds since the epoch, not seconds")
            #expect(sandbox.inbox(token: token).isEmpty)

            #expect(try await client.send(TestPush(token: deviceToken(0x42), authorization: try TestKeys.bearer())).status == 200,
                    "other tokens are unaffected")
        }
    }

    @Test("a reasons fault answers with exactly that reason and its status, for every APNs reason")
    func everyReasonCanBeProvoked() async throws {
        var reasons: [String: APNsReason] = [:]
        for (index, reason) in APNsReason.allCases.enumerated() { reasons[deviceToken(index + 1)] = reason }
        try await withSandbox(faults: SandboxFaults(reasons: reasons)) { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            for (index, reason) in APNsReason.allCases.enumerated() {
                let response = try await client.send(TestPush(token: deviceToken(index + 1), authorization: bearer))
                #expect(response.status == reason.status, "\(reason.rawValue)")
                #expect(response.reason == reason.rawValue)
                #expect((response.json["timestamp"] != nil) == (reason.status == 410), "\(reason.rawValue): timestamp only on 410")
            }
            #expect(sandbox.allInboxes().isEmpty)
        }
    }

    @Test("a token fault applies only to requests that pass the checks")
    func tokenFaultAfterChecks() async throws {
        let token = deviceToken(9)
        try await withSandbox(faults: SandboxFaults(unregistered: [token])) { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let response = try await client.send(TestPush(token: token, authorization: nil))
            #expect(response.reason == "MissingProviderToken")
        }
    }

    @Test("tooManyRequestsRate 1.0 answers every push 429 TooManyRequests; unavailableRate 1.0 answers 503")
    func rateFaults() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            sandbox.faults = SandboxFaults(tooManyRequestsRate: 1)
            for _ in 0..<3 {
                let response = try await client.send(TestPush(authorization: bearer))
                #expect(response.status == 429)
                #expect(response.reason == "TooManyRequests")
            }
            sandbox.faults = SandboxFaults(unavailableRate: 1)
            for _ in 0..<3 {
                let response = try await client.send(TestPush(authorization: bearer))
                #expect(response.status == 503)
                #expect(response.reason == "ServiceUnavailable")
            }
            sandbox.faults = SandboxFaults()
            #expect(try await client.send(TestPush(authorization: bearer)).status == 200)
            #expect(sandbox.inbox(token: deviceToken()).count == 1)
        }
    }

    @Test("goAwayAfterStreams sends GOAWAY after N streams; those N are answered, later ones are not processed")
    func goAwayAfterStreams() async throws {
        try await withSandbox(faults: SandboxFaults(goAwayAfterStreams: 3)) { sandbox in
            let bearer = try TestKeys.bearer()
            let client = try await connect(sandbox)
            defer { client.close() }
            for index in 1...3 {
                let response = try await client.send(TestPush(authorization: bearer, body: alertBody(title: "n\(index)")))
                #expect(response.status == 200, "stream \(index) is answered")
            }
            #expect(await pollUntil(interval: .milliseconds(10)) { !client.isUsable }, "the connection is retired after GOAWAY")
            await #expect(throws: HTTP2Error.self) {
                _ = try await client.send(TestPush(authorization: bearer))
            }
            #expect(sandbox.inbox(token: deviceToken()).count == 3)

            let fresh = try await connect(sandbox)
            defer { fresh.close() }
            #expect(try await fresh.send(TestPush(authorization: bearer)).status == 200, "a new connection works again")
        }
    }

    @Test("latencyMilliseconds delays every answer")
    func latency() async throws {
        try await withSandbox(faults: SandboxFaults(latencyMilliseconds: 3000)) { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let clock = ContinuousClock()
            var response: HTTP2Response?
            let accepted = try await clock.measure { response = try await client.send(TestPush(authorization: bearer)) }
            #expect(response?.status == 200)
            #expect(accepted >= .milliseconds(3000))
            var refused: HTTP2Response?
            let refusal = try await clock.measure { refused = try await client.send(TestPush(authorization: nil)) }
            #expect(refused?.status == 403)
            #expect(refusal >= .milliseconds(3000), "refusals are slow too")

            sandbox.faults.latencyMilliseconds = 0
            let quick = try await clock.measure { _ = try await client.send(TestPush(authorization: bearer)) }
            // Only that the delay is gone; generous, since a loaded machine is slow on its own.
            #expect(quick < .seconds(2))
        }
    }
}
