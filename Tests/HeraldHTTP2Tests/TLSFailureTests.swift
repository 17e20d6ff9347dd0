import Foundation
import HeraldHTTP2
import HeraldTestSupport
import Testing

@Suite("TLS and connection failures give clear errors")
struct TLSFailureTests {
    private static let okHandler: HTTP2Server.Handler = { _, _ in HTTP2Response(status: 200) }

    @Test("a server certificate from an unknown CA is rejected with a verification error")
    func unknownCA() async throws {
        let tls = TLSServerConfiguration(certificateFile: Certs.path("unknown-server.pem"), keyFile: Certs.path("unknown-server.key"))
        try await withServer(tls: tls, handler: Self.okHandler) { server in
            let error = await captureError { _ = try await connect(server) }
            guard case .tls(let message)? = error as? HTTP2Error else {
                Issue.record("expected .tls, got \(String(describing: error))")
                return
            }
            #expect(message.contains("certificate verification failed"), "\(message)")
            #expect(message.contains("issuer"), "\(message)")
        }
    }

    @Test("the same certificate is accepted when its CA is trusted")
    func knownCA() async throws {
        let tls = TLSServerConfiguration(certificateFile: Certs.path("unknown-server.pem"), keyFile: Certs.path("unknown-server.key"))
        try await withServer(tls: tls, handler: Self.okHandler) { server in
            let client = try await connect(server, tls: TLSConfiguration(trustRoots: .caFile(Certs.path("unknown-ca.pem"))))
            #expect(try await client.send(get("/"), timeout: .seconds(5)).status == 200)
            client.close()
        }
    }

    @Test("a certificate for another host name is rejected with a host-name error")
    func wrongHostName() async throws {
        try await withServer(handler: Self.okHandler) { server in
            var tls = Certs.clientTLS
            tls.serverName = "wrong.example.com"
            let error = await captureError { _ = try await connect(server, tls: tls) }
            guard case .tls(let message)? = error as? HTTP2Error else {
                Issue.record("expected .tls, got \(String(describing: error))")
                return
            }
            #expect(message.contains("wrong.example.com"), "\(message)")
            #expect(message.contains("mismatch"), "\(message)")
        }
    }

    @Test("connecting by DNS name verifies the name and falls back across addresses")
    func localhostName() async throws {
        try await withServer(handler: Self.okHandler) { server in
            let client = try await HTTP2ClientConnection.connect(host: "localhost", port: server.port, tls: Certs.clientTLS,
                                                                 timeout: .seconds(5))
            #expect(try await client.send(get("/"), timeout: .seconds(5)).status == 200)
            client.close()
        }
    }

    @Test("a server that selects http/1.1 in ALPN fails with alpnNotNegotiated")
    func alpnHTTP11() async throws {
        var tls = Certs.serverTLS
        tls.alpnProtocols = ["http/1.1"]
        try await withServer(tls: tls, handler: Self.okHandler) { server in
            var client = Certs.clientTLS
            client.alpnProtocols = ["h2", "http/1.1"]
            let error = await captureError { _ = try await connect(server, tls: client) }
            #expect(error as? HTTP2Error == .alpnNotNegotiated(selected: "http/1.1"))
        }
    }

    @Test("a server that ignores ALPN fails with alpnNotNegotiated(selected: nil)")
    func alpnNone() async throws {
        var tls = Certs.serverTLS
        tls.alpnProtocols = ["spdy/3.1"]
        try await withServer(tls: tls, handler: Self.okHandler) { server in
            let error = await captureError { _ = try await connect(server) }
            #expect(error as? HTTP2Error == .alpnNotNegotiated(selected: nil))
        }
    }

    @Test("openssl s_server offering only http/1.1 fails with alpnNotNegotiated")
    func opensslServerWithoutH2() async throws {
        let openssl = try requireExecutable("openssl", debianPackage: "openssl")
        let port = try unusedLoopbackPort()
        let server = try ExternalProcess(openssl, ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", Certs.path("sandbox-server.pem"),
                                                   "-key", Certs.path("sandbox-server.key"), "-alpn", "http/1.1", "-www", "-quiet"])
        defer { server.stop() }
        #expect(await waitForPort(port))
        var client = Certs.clientTLS
        client.alpnProtocols = ["h2", "http/1.1"]
        let error = await captureError {
            _ = try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: port, tls: client, timeout: .seconds(5))
        }
        #expect(error as? HTTP2Error == .alpnNotNegotiated(selected: "http/1.1"))
    }

    @Test("nothing listening gives connectFailed")
    func connectionRefused() async throws {
        let port = try unusedLoopbackPort()
        let error = await captureError {
            _ = try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: port, tls: Certs.clientTLS, timeout: .seconds(5))
        }
        guard case .connectFailed(let message)? = error as? HTTP2Error else {
            Issue.record("expected .connectFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("refused"), "\(message)")
    }

    @Test("a server that never answers the handshake hits the connect timeout")
    func handshakeTimeout() async throws {
        // A listening socket that accepts (via the backlog) but never speaks TLS.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = listen(fd, 4)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let started = ContinuousClock.now
        let error = await captureError {
            _ = try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: port, tls: Certs.clientTLS, timeout: .milliseconds(300))
        }
        guard case .connectFailed? = error as? HTTP2Error else {
            Issue.record("expected .connectFailed, got \(String(describing: error))")
            return
        }
        // Generous: the point is that the attempt ends, not how fast a loaded machine gets there.
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("missing certificate files are reported as invalid configuration")
    func missingFiles() async throws {
        let error = await captureError {
            _ = try await HTTP2ClientConnection.connect(host: "127.0.0.1", port: 1, tls: TLSConfiguration(trustRoots: .caFile("/nonexistent/ca.pem")),
                                                        timeout: .seconds(1))
        }
        guard case .invalidConfiguration(let message)? = error as? HTTP2Error else {
            Issue.record("expected .invalidConfiguration, got \(String(describing: error))")
            return
        }
        #expect(message.contains("/nonexistent/ca.pem"))
        let server = HTTP2Server(tls: TLSServerConfiguration(certificateFile: "/nonexistent/cert.pem", keyFile: "/nonexistent/key.pem"),
                                 handler: Self.okHandler)
        await #expect(throws: HTTP2Error.self) { try await server.start() }
    }
}
