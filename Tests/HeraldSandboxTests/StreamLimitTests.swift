import HeraldHTTP2
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("MAX_CONCURRENT_STREAMS as APNs advertises it")
struct StreamLimitTests {
    @Test("a new connection may use one stream until its first accepted push, then 1000")
    func oneStreamUntilFirstSuccess() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            #expect(client.maxConcurrentStreams == 1)

            let refused = try await client.send(TestPush(authorization: nil))
            #expect(refused.status == 403)
            try await Task.sleep(for: .milliseconds(50))
            #expect(client.maxConcurrentStreams == 1, "a refused push does not raise the limit")

            let accepted = try await client.send(TestPush(authorization: try TestKeys.bearer()))
            #expect(accepted.status == 200)
            #expect(await pollUntil(interval: .milliseconds(10)) { client.maxConcurrentStreams == 1000 })

            let second = try await connect(sandbox)
            defer { second.close() }
            #expect(second.maxConcurrentStreams == 1, "each connection starts over at one stream")
        }
    }

    @Test("after the limit is raised, many pushes share the connection at once")
    func raisedLimitIsUsable() async throws {
        try await withSandbox(faults: SandboxFaults(latencyMilliseconds: 50)) { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            #expect(try await client.send(TestPush(authorization: bearer)).status == 200)
            #expect(await pollUntil(interval: .milliseconds(10)) { client.maxConcurrentStreams == 1000 })
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<50 {
                        group.addTask { try await client.send(TestPush(token: deviceToken(index), authorization: bearer)).status }
                    }
                    for try await status in group { #expect(status == 200) }
                }
            }
            // 50 pushes of 50 ms each would take 2.5 s one at a time.
            #expect(elapsed < .milliseconds(2000))
        }
    }
}
