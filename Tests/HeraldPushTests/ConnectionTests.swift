import Foundation
import HeraldCore
import HeraldPush
import HeraldSandbox
import HeraldTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP listener that never accepts: the kernel completes the TCP handshake, but
/// nobody ever answers the TLS ClientHello.
final class SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = fd >= 0 && withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socket in
                bind(fd, socket, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, socket, &length) == 0
            }
        }
        guard bound else {
            if fd >= 0 { close(fd) }
            throw POSIXError(.EADDRNOTAVAIL)
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

@Suite("Connections: few multiplexed connections, GOAWAY, the one-stream start, and deadlines")
struct ConnectionTests {
    @Test("GOAWAY in the middle of a batch: all 500 pushes succeed, each delivered exactly once",
          arguments: [2000, 20, 5])
    func goAwayMidBatch(concurrency: Int) async throws {
        try await withSandbox(faults: SandboxFaults(goAwayAfterStreams: 50)) { sandbox in
            try await withPushGateway(timeout: .seconds(20), concurrency: concurrency) { gateway in
                let pushes = try (0..<500).map { try alert(to: deviceToken(400 + $0 % 25), body: "n\($0)") }
                let outcomes = await gateway.send(pushes, app: sandbox.app())

                #expect(outcomes.count == 500)
                let failures = outcomes.filter { !$0.succeeded }
                #expect(failures.isEmpty, "\(failures.count) failed, e.g. \(failures.prefix(3))")
                #expect(outcomes.map(\.apnsID) == pushes.map(\.id), "each outcome carries its own push's apns-id")

                let delivered = sandbox.everything.map(\.apnsId)
                #expect(delivered.count == 500, "nothing lost, nothing processed twice")
                #expect(Set(delivered).count == delivered.count, "no apns-id was processed twice")
                #expect(Set(delivered) == Set(pushes.map(\.id)))
            }
        }
    }

    @Test("GOAWAY every 50 streams while the client is mid-burst, 30 rounds: no answer is lost to the close, nothing runs twice",
          .timeLimit(.minutes(3)), arguments: [20, 5])
    func goAwayMidBurstRepeated(concurrency: Int) async throws {
        // Few pushes in flight: the client keeps writing new requests as answers come back, so the
        // server's close finds unread input, the case that used to turn the close into an RST.
        for round in 1...30 {
            try await withSandbox(faults: SandboxFaults(goAwayAfterStreams: 50)) { sandbox in
                try await withPushGateway(timeout: .seconds(20), concurrency: concurrency) { gateway in
                    let pushes = try (0..<300).map { try alert(to: deviceToken(900 + $0 % 30), body: "r\(round)-\($0)") }
                    let outcomes = await gateway.send(pushes, app: sandbox.app())
                    let failures = outcomes.filter { !$0.succeeded }
                    #expect(failures.isEmpty, "round \(round): \(failures.count) failed, e.g. \(failures.prefix(2).map { $0.reason ?? "?" })")
                    let delivered = sandbox.everything.map(\.apnsId)
                    #expect(delivered.count == 300 && Set(delivered).count == 300,
                            "round \(round): \(delivered.count) processed, \(Set(delivered).count) distinct")
                }
            }
        }
    }

    @Test("the one-stream start: 100 pushes at once on a fresh client all succeed, the first included, on one connection")
    func oneStreamStart() async throws {
        try await withSandbox { sandbox in
            try await withPushGateway { gateway in
                let pushes = try (0..<100).map { try alert(to: deviceToken(500 + $0)) }
                let outcomes = await gateway.send(pushes, app: sandbox.app())

                #expect(outcomes.first?.status == 200, "the first push, sent while the server allows one stream")
                #expect(outcomes.allSatisfy { $0.succeeded }, "\(outcomes.filter { !$0.succeeded }.prefix(3))")
                let delivered = sandbox.everything.map(\.apnsId)
                #expect(delivered.count == 100)
                #expect(Set(delivered) == Set(pushes.map(\.id)))
                let client = try await gateway.client(for: sandbox.app())
                #expect(client.openConnections == 1,
                        "the one-stream start counts as room: the pool (2 per app) waits for the limit to rise")
            }
        }
    }

    @Test("every request has a deadline: a server slower than the push's timeout gives reason timeout, on time")
    func deadline() async throws {
        // The server answers after 10 s; the push must give up long before, even on a loaded machine.
        try await withSandbox(faults: SandboxFaults(latencyMilliseconds: 10_000)) { sandbox in
            try await withPushGateway(timeout: .milliseconds(300)) { gateway in
                let token = deviceToken(600)
                let (outcomes, elapsed) = try await timed { await gateway.send([try alert(to: token)], app: sandbox.app()) }
                let outcome = try #require(outcomes.first)
                #expect(outcome.reason == "timeout")
                #expect(!outcome.succeeded)
                #expect(elapsed < .seconds(6), "answered after \(elapsed), not when the server finally replies")
            }
        }
    }

    @Test("a batch shares the deadline rule: each slow push times out, none waits for the next")
    func deadlineForBatch() async throws {
        try await withSandbox(faults: SandboxFaults(latencyMilliseconds: 10_000)) { sandbox in
            try await withPushGateway(timeout: .milliseconds(300)) { gateway in
                let pushes = try (0..<20).map { try alert(to: deviceToken(610 + $0)) }
                let (outcomes, elapsed) = await timed { await gateway.send(pushes, app: sandbox.app()) }
                #expect(outcomes.map(\.reason) == Array(repeating: "timeout", count: 20))
                #expect(elapsed < .seconds(6))
            }
        }
    }

    @Test("the deadline covers connecting too: a server that never completes the TLS handshake fails the push on time")
    func deadlineCoversConnecting() async throws {
        let listener = try SilentListener()
        let app = App(id: Dev.bundleID, push: PushSettings(environment: "https://127.0.0.1:\(listener.port)",
                                                           caFile: TestCertificates.path("dev-ca.pem"), auth: Dev.tokenAuth))
        try await withPushGateway(timeout: .milliseconds(300)) { gateway in
            let (outcomes, elapsed) = try await timed { await gateway.send([try alert(to: deviceToken(630))], app: app) }
            let outcome = try #require(outcomes.first)
            #expect(!outcome.succeeded)
            #expect(outcome.reason == "timeout")
            // The pool's connect timeout is 10 s: finishing well before it shows the push's own deadline won.
            #expect(elapsed < .seconds(6), "a 300 ms push took \(elapsed)")
        }
        withExtendedLifetime(listener) {}
    }

    @Test("an unreachable gateway fails the push within its deadline")
    func unreachable() async throws {
        // A port that was free a moment ago: the sandbox is started and stopped to find one.
        let port = try await withSandbox { $0.port }
        let settings = PushSettings(environment: "https://127.0.0.1:\(port)", caFile: TestCertificates.path("dev-ca.pem"),
                                    auth: Dev.tokenAuth)
        try await withClient(settings, retry: quickRetry) { client in
            let push = try alert(to: deviceToken(620))
            let (outcome, elapsed) = await timed { await client.send(push, timeout: .seconds(2)) }
            #expect(!outcome.succeeded)
            #expect(outcome.status != 200)
            #expect(elapsed < .seconds(3))
        }
    }
}
