import Foundation
@testable import HeraldHTTP2
import Testing

/// Client TLS session resumption (issue 23): a client context remembers each server's latest
/// session and offers it on the next connection to exactly that server and name.
@Suite("TLS session resumption")
struct TLSSessionResumptionTests {
    private static let okHandler: HTTP2Server.Handler = { request, _ in
        HTTP2Response(status: 200, body: Array(request.path.utf8))
    }

    /// One connection with one request, shut down before returning.
    private func roundTrip(_ server: HTTP2Server, host: String = "127.0.0.1", tls: HTTP2ClientTLS,
                           path: String = "/") async throws -> HTTP2Response {
        let client = try await HTTP2ClientConnection.connect(host: host, port: server.port, tls: tls, timeout: .seconds(10))
        let response = try await client.send(get(path), timeout: .seconds(5))
        await client.shutdown()
        return response
    }

    @Test("a second connection to the same server resumes the first one's session, and its request succeeds")
    func secondConnectionResumes() async throws {
        try await withServer(handler: Self.okHandler) { server in
            let tls = try HTTP2ClientTLS(Certs.clientTLS)
            let cache = try #require(tls.context.sessionCache)

            #expect(try await roundTrip(server, tls: tls, path: "/first").status == 200)
            #expect(cache.statistics.full == 1)
            #expect(cache.statistics.resumed == 0)
            #expect(cache.hasSession(for: .init(address: "127.0.0.1:\(server.port)", serverName: "127.0.0.1")))

            let second = try await roundTrip(server, tls: tls, path: "/second")
            #expect(second.status == 200)
            #expect(second.body == Array("/second".utf8))
            #expect(cache.statistics.offered == 1)
            #expect(cache.statistics.resumed == 1)
            #expect(cache.statistics.full == 1)

            // The resumed connection got a fresh ticket, so the chain continues.
            #expect(try await roundTrip(server, tls: tls, path: "/third").status == 200)
            #expect(cache.statistics.resumed == 2)
        }
    }

    @Test("a client with a fresh TLS context does not resume another context's session")
    func freshContextDoesNotResume() async throws {
        try await withServer(handler: Self.okHandler) { server in
            let first = try HTTP2ClientTLS(Certs.clientTLS)
            #expect(try await roundTrip(server, tls: first).status == 200)
            #expect(try #require(first.context.sessionCache).statistics.stored >= 1)

            let fresh = try HTTP2ClientTLS(Certs.clientTLS)
            #expect(try await roundTrip(server, tls: fresh).status == 200)
            let statistics = try #require(fresh.context.sessionCache).statistics
            #expect(statistics.offered == 0)
            #expect(statistics.resumed == 0)
            #expect(statistics.full == 1)
        }
    }

    @Test("a session is offered only to the server name and address it came from")
    func sessionScopedToServerName() async throws {
        try await withServer(handler: Self.okHandler) { server in
            let tls = try HTTP2ClientTLS(Certs.clientTLS)
            let cache = try #require(tls.context.sessionCache)
            #expect(try await roundTrip(server, tls: tls).status == 200)  // stored for 127.0.0.1 / 127.0.0.1
            let view = tls.context.forPeer(host: "127.0.0.1", port: server.port)

            // Same address, another (equally valid) name: nothing offered, a full verified handshake.
            let otherName = try TLSConnection(context: view, serverName: "localhost")
            #expect(!otherName.offeredSession)
            try handshake(otherName, port: server.port)
            #expect(!otherName.resumedSession)

            // Same name, another port: nothing offered.
            let otherPort = try TLSConnection(context: tls.context.forPeer(host: "127.0.0.1", port: server.port + 1),
                                              serverName: "127.0.0.1")
            #expect(!otherPort.offeredSession)

            // The connection by DNS name is another server entry too: it runs in full.
            #expect(try await roundTrip(server, host: "localhost", tls: tls).status == 200)
            #expect(cache.statistics.resumed == 0)

            // The session is still there for its own name, and resumes there.
            let sameName = try TLSConnection(context: view, serverName: "127.0.0.1")
            #expect(sameName.offeredSession)
            try handshake(sameName, port: server.port)
            #expect(sameName.resumedSession)
        }
    }

    @Test("a server that requires client certificates resumes too, and still knows the client")
    func mutualTLSResumes() async throws {
        var serverTLS = Certs.serverTLS
        serverTLS.clientCAFile = Certs.devCA
        serverTLS.requireClientCertificate = true
        try await withServer(tls: serverTLS, handler: { _, context in
            HTTP2Response(status: 200, body: Array((context.clientCertificateSubject ?? "none").utf8))
        }) { server in
            var clientTLS = Certs.clientTLS
            clientTLS.clientCertificate = .pem(certificateFile: Certs.path("dev-client.pem"), keyFile: Certs.path("dev-client.key"))
            let tls = try HTTP2ClientTLS(clientTLS)
            let first = try await roundTrip(server, tls: tls)
            let second = try await roundTrip(server, tls: tls)
            #expect(try #require(tls.context.sessionCache).statistics.resumed == 1)
            for response in [first, second] {
                let subject = String(decoding: response.body, as: UTF8.self)
                #expect(subject.contains("CN=com.example.herald.dev"), "subject was \(subject)")
            }
        }
    }

    @Test("a context that cannot verify the server never stores or offers a session for it")
    func untrustedServerNeverResumes() async throws {
        try await withServer(handler: Self.okHandler) { server in
            let tls = try HTTP2ClientTLS(TLSConfiguration(trustRoots: .caFile(Certs.path("unknown-ca.pem"))))
            for _ in 0..<2 {
                let error = await captureError { _ = try await roundTrip(server, tls: tls) }
                #expect(error != nil)
            }
            let statistics = try #require(tls.context.sessionCache).statistics
            #expect(statistics.stored == 0)
            #expect(statistics.offered == 0)
        }
    }

    /// Runs a client handshake over a blocking socket to 127.0.0.1:`port`.
    private func handshake(_ tls: TLSConnection, port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HTTP2Error.connectFailed("connect: \(errno)") }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let state = tls.handshake()
            var output: [UInt8] = []
            tls.drainOutput(into: &output)
            if !output.isEmpty {
                let sent = output.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent == output.count else { throw HTTP2Error.connectFailed("send: \(errno)") }
            }
            switch state {
            case .complete: return
            case .failed(let error): throw error
            case .inProgress:
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw HTTP2Error.connectFailed("recv: \(count) \(errno)") }
                buffer.withUnsafeBytes { tls.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
        }
    }
}
