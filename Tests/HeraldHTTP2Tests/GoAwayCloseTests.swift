import Foundation
import Testing
@testable import HeraldHTTP2

/// GOAWAY correctness when the server does not wait for the client: every request at or below
/// the GOAWAY's last-stream-id ends with the server's answer, never `connectionClosed`.
@Suite("GOAWAY answers are never dropped", .serialized)
struct GoAwayCloseTests {
    @Test("a server that answers, sends GOAWAY and closes with unread input while the client is mid-burst: 50 rounds, every answer arrives")
    func abruptCloseMidBurst() async throws {
        var notProcessedInAll = 0
        for round in 1...50 {
            let handled = Tally()
            let perConnection = Tally()
            // 50 streams at a time with 4 KiB bodies: the client keeps opening streams and writing
            // bodies as answers come back, so it is writing when the server closes on it.
            try await withServer(settings: HTTP2ServerSettings(maxConcurrentStreams: 50), handler: { request, context in
                handled.record(request.header("x-id") ?? "?")
                if perConnection.record("\(context.connectionID)") == 40 { context.goAwayAfterCurrentThenCloseAbruptly() }
                return HTTP2Response(status: 200)
            }) { server in
                let client = try await connect(server)
                defer { client.close() }
                let body = [UInt8](repeating: 0x62, count: 4096)
                let requests = (0..<400).map {
                    HTTP2Request(method: "POST", path: "/burst", authority: "localhost", headers: [("x-id", "\($0)")], body: body)
                }
                let results = await client.send(requests, timeout: .seconds(20))
                var answered = Set<String>()
                var notProcessed = 0
                for (index, result) in results.enumerated() {
                    switch result {
                    case .success(let response):
                        #expect(response.status == 200)
                        answered.insert("\(index)")
                    case .failure(.notProcessed):
                        notProcessed += 1
                    case .failure(let error):
                        Issue.record("round \(round): request \(index) ended with \(error), not its answer")
                    }
                }
                let processed = Set(handled.snapshot.keys)
                #expect(processed == answered, "round \(round): every request the server processed got its answer")
                #expect(notProcessed + answered.count == 400)
                notProcessedInAll += notProcessed
            }
        }
        #expect(notProcessedInAll > 0, "the server closed before the client had sent everything")
    }

    @Test("a GOAWAY held back behind a full output buffer still reaches the client, and streams above it are not processed: 10 rounds")
    func goAwayBehindFullBuffer() async throws {
        for round in 1...10 {
            let handled = Tally()
            let perConnection = Tally()
            let big = [UInt8](repeating: 0x61, count: 256 * 1024)
            try await withServer(settings: HTTP2ServerSettings(maxConcurrentStreams: 10), handler: { request, context in
                handled.record(request.header("x-id") ?? "?")
                if perConnection.record("\(context.connectionID)") == 20 { context.goAwayAfterCurrent() }
                return HTTP2Response(status: 200, body: big)
            }) { server in
                // A small receive window keeps the server's output queued behind flow control, so
                // the GOAWAY waits behind megabytes of answers.
                let client = try await connect(server, options: HTTP2ClientOptions(initialWindowSize: 64 * 1024,
                                                                                   connectionWindowSize: 256 * 1024))
                defer { client.close() }
                let requests = (0..<100).map { get("/big", headers: [("x-id", "\($0)")]) }
                let results = await client.send(requests, timeout: .seconds(30))
                var answered = Set<String>()
                for (index, result) in results.enumerated() {
                    switch result {
                    case .success(let response):
                        #expect(response.body.count == big.count)
                        answered.insert("\(index)")
                    case .failure(.notProcessed):
                        break
                    case .failure(let error):
                        Issue.record("round \(round): request \(index) ended with \(error)")
                    }
                }
                #expect(Set(handled.snapshot.keys) == answered, "round \(round): each processed request answered in full")
                #expect(answered.count < 100, "round \(round): the GOAWAY left some requests unprocessed")
            }
        }
    }
}
