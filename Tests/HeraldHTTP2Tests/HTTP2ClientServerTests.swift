import Foundation
import HeraldHTTP2
import HeraldTestSupport
import Synchronization
import Testing

@Suite("HTTP/2 client against our own server", .serialized)
struct HTTP2ClientServerTests {
    @Test("a simple request gets its response with status, headers and body")
    func simpleRequest() async throws {
        try await withServer(handler: { request, _ in
            HTTP2Response(status: 200, headers: [("x-echo-path", request.path), ("x-method", request.method),
                                                 ("x-header", request.header("x-test") ?? "")],
                          body: Array("hello \(request.authority)".utf8))
        }) { server in
            let client = try await connect(server)
            defer { client.close() }
            #expect(client.isUsable)
            let response = try await client.send(get("/ping", headers: [("X-Test", "value")]), timeout: .seconds(5))
            #expect(response.status == 200)
            #expect(response.header("x-echo-path") == "/ping")
            #expect(response.header("x-method") == "GET")
            #expect(response.header("x-header") == "value")
            #expect(String(decoding: response.body, as: UTF8.self) == "hello localhost")
        }
    }

    @Test("1000 concurrent requests are multiplexed on one connection")
    func thousandConcurrent() async throws {
        let tally = Tally()
        try await withServer(settings: HTTP2ServerSettings(maxConcurrentStreams: 100), handler: { request, context in
            tally.record("conn-\(context.connectionID)")
            return HTTP2Response(status: 200, body: Array(request.path.utf8))
        }) { server in
            let client = try await connect(server)
            defer { client.close() }
            let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<1000 {
                    group.addTask {
                        let response = try await client.send(get("/item/\(index)"), timeout: .seconds(30))
                        return response.status == 200 && response.body == Array("/item/\(index)".utf8)
                    }
                }
                var ok = 0
                for try await success in group where success { ok += 1 }
                return ok
            }
            #expect(ok == 1000)
            #expect(tally.snapshot == ["conn-1": 1000], "all requests on one connection")
        }
    }

    @Test("MAX_CONCURRENT_STREAMS=1 is honoured, and a raised limit is used")
    func maxConcurrentStreamsHonoured() async throws {
        let tally = Tally()
        try await withServer(settings: HTTP2ServerSettings(maxConcurrentStreams: 1), handler: { request, context in
            if request.path == "/raise" {
                context.setMaxConcurrentStreams(50)
                return HTTP2Response(status: 200)
            }
            return await tally.measure {
                try? await Task.sleep(for: .milliseconds(20))
                return HTTP2Response(status: 200)
            }
        }) { server in
            let client = try await connect(server)
            defer { client.close() }
            #expect(client.maxConcurrentStreams == 1)
            try await burst(client, count: 10)
            #expect(tally.peak.load(ordering: .relaxed) == 1)

            _ = try await client.send(get("/raise"), timeout: .seconds(5))
            _ = await pollUntil(timeout: .seconds(5), interval: .milliseconds(10)) { client.maxConcurrentStreams == 50 }
            #expect(client.maxConcurrentStreams == 50)
            tally.peak.store(0, ordering: .relaxed)
            try await burst(client, count: 40)
            #expect(tally.peak.load(ordering: .relaxed) > 1)
            #expect(tally.peak.load(ordering: .relaxed) <= 50)
        }
    }

    private func burst(_ client: HTTP2ClientConnection, count: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await client.send(get("/work/\(index)"), timeout: .seconds(20))
                    #expect(response.status == 200)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("GOAWAY mid-burst: streams above last-stream-id are notProcessed, none lost, none processed twice")
    func goAwayMidBurst() async throws {
        let tally = Tally()
        let perConnection = Tally()
        try await withServer(handler: { request, context in
            tally.record(request.header("x-id") ?? "?")
            if perConnection.record("\(context.connectionID)") == 30 { context.goAwayAfterCurrent() }
            try? await Task.sleep(for: .milliseconds(5))
            return HTTP2Response(status: 200)
        }) { server in
            var pending = Array(0..<300)
            var firstRoundNotProcessed = 0
            var rounds = 0
            while !pending.isEmpty, rounds < 40 {
                rounds += 1
                let client = try await connect(server)
                let outcomes = await withTaskGroup(of: (Int, (any Error)?).self) { group in
                    for id in pending {
                        group.addTask {
                            do {
                                let response = try await client.send(get("/goaway", headers: [("x-id", "\(id)")]), timeout: .seconds(20))
                                return (id, response.status == 200 ? nil : HTTP2Error.protocolError("status \(response.status)"))
                            } catch {
                                return (id, error)
                            }
                        }
                    }
                    var outcomes: [(Int, (any Error)?)] = []
                    for await outcome in group { outcomes.append(outcome) }
                    return outcomes
                }
                client.close()
                var retry: [Int] = []
                for (id, error) in outcomes {
                    guard let error else { continue }
                    if let h2 = error as? HTTP2Error, h2.isSafeToRetry {
                        retry.append(id)
                    } else {
                        Issue.record("request \(id) failed with a non-retryable error: \(error)")
                    }
                }
                if rounds == 1 { firstRoundNotProcessed = retry.count }
                pending = retry
            }
            #expect(pending.isEmpty, "every request eventually processed")
            #expect(firstRoundNotProcessed > 0, "the GOAWAY left some requests unprocessed")
            let counts = tally.snapshot
            #expect(counts.count == 300, "none lost")
            #expect(counts.values.allSatisfy { $0 == 1 }, "none processed twice: \(counts.filter { $0.value != 1 })")
        }
    }

    @Test("a request that gets no response in time fails with .timeout, and the connection stays usable")
    func requestTimeout() async throws {
        try await withServer(handler: { request, _ in
            if request.path == "/slow" { try? await Task.sleep(for: .seconds(3)) }
            return HTTP2Response(status: 200)
        }) { server in
            let client = try await connect(server)
            defer { client.close() }
            let started = ContinuousClock.now
            let error = await captureError { _ = try await client.send(get("/slow"), timeout: .milliseconds(200)) }
            #expect(error as? HTTP2Error == .timeout)
            #expect(ContinuousClock.now - started < .seconds(2))
            let response = try await client.send(get("/fast"), timeout: .seconds(5))
            #expect(response.status == 200)
            #expect(client.isUsable)
        }
    }

    @Test("a request queued behind a full stream limit fails on time as not processed: it was never sent")
    func queuedRequestTimeout() async throws {
        try await withServer(settings: HTTP2ServerSettings(maxConcurrentStreams: 1), handler: { _, _ in
            try? await Task.sleep(for: .seconds(2))
            return HTTP2Response(status: 200)
        }) { server in
            let client = try await connect(server)
            defer { client.close() }
            async let first = captureError { _ = try await client.send(get("/a"), timeout: .seconds(10)) }
            try await Task.sleep(for: .milliseconds(100))
            let started = ContinuousClock.now
            let second = await captureError { _ = try await client.send(get("/b"), timeout: .milliseconds(300)) }
            guard case .notProcessed = second as? HTTP2Error else {
                Issue.record("expected notProcessed, got \(String(describing: second))")
                return
            }
            #expect(ContinuousClock.now - started < .seconds(1.5))
            #expect(await first == nil)
        }
    }

    @Test("closing the connection fails open and queued requests with a clear error")
    func closeFailsPending() async throws {
        try await withServer(settings: HTTP2ServerSettings(maxConcurrentStreams: 2), handler: { _, _ in
            try? await Task.sleep(for: .seconds(5))
            return HTTP2Response(status: 200)
        }) { server in
            let client = try await connect(server)
            let started = ContinuousClock.now
            let errors = await withTaskGroup(of: (any Error)?.self) { group in
                for index in 0..<5 {
                    group.addTask { await captureError { _ = try await client.send(get("/hang/\(index)"), timeout: .seconds(30)) } }
                }
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(300))
                    client.close()
                    return nil
                }
                var errors: [HTTP2Error] = []
                for await error in group {
                    if let error { errors.append(error as! HTTP2Error) }
                }
                return errors
            }
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(errors.count == 5)
            let open = errors.filter { if case .connectionClosed = $0 { return true } else { return false } }
            let queued = errors.filter(\.isSafeToRetry)
            #expect(open.count == 2, "the two open streams: \(errors)")
            #expect(queued.count == 3, "the three queued requests were never sent: \(errors)")
            #expect(!client.isUsable)
            let after = await captureError { _ = try await client.send(get("/late"), timeout: .seconds(1)) }
            #expect((after as? HTTP2Error)?.isSafeToRetry == true)
        }
    }

    @Test("a 1 MiB request and response body pass through flow control intact")
    func largeBodies() async throws {
        var generator = SystemRandomNumberGenerator()
        let payload = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try await withServer(settings: HTTP2ServerSettings(initialWindowSize: 65_535, maxRequestBodySize: 4 << 20), handler: { request, _ in
            HTTP2Response(status: 200, headers: [("x-size", "\(request.body.count)")], body: request.body.reversed())
        }) { server in
            let client = try await connect(server, options: HTTP2ClientOptions(initialWindowSize: 65_535, connectionWindowSize: 65_535))
            defer { client.close() }
            let responses = try await withThrowingTaskGroup(of: HTTP2Response.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await client.send(HTTP2Request(method: "POST", path: "/upload", authority: "localhost", body: payload),
                                              timeout: .seconds(30))
                    }
                }
                var responses: [HTTP2Response] = []
                for try await response in group { responses.append(response) }
                return responses
            }
            let expected = Array(payload.reversed())
            for response in responses {
                #expect(response.header("x-size") == "\(1 << 20)")
                #expect(response.body == expected)
            }
        }
    }

    @Test("a full request queue is rejected with .queueFull")
    func queueFull() async throws {
        try await withServer(settings: HTTP2ServerSettings(maxConcurrentStreams: 1), handler: { _, _ in
            try? await Task.sleep(for: .milliseconds(500))
            return HTTP2Response(status: 200)
        }) { server in
            let client = try await connect(server, options: HTTP2ClientOptions(maxQueuedRequests: 2))
            defer { client.close() }
            let errors = await withTaskGroup(of: (any Error)?.self) { group in
                for index in 0..<6 {
                    group.addTask { await captureError { _ = try await client.send(get("/q/\(index)"), timeout: .seconds(10)) } }
                }
                var errors: [HTTP2Error] = []
                for await error in group { if let error { errors.append(error as! HTTP2Error) } }
                return errors
            }
            #expect(errors.count == 3, "\(errors)")
            #expect(errors.allSatisfy { $0 == .queueFull(limit: 2) })
        }
    }

    @Test("an idle connection sends PINGs and stays usable while they are acknowledged")
    func idlePing() async throws {
        try await withServer(handler: { _, _ in HTTP2Response(status: 204) }) { server in
            let client = try await connect(server, options: HTTP2ClientOptions(pingInterval: .milliseconds(100), pingTimeout: .milliseconds(500)))
            defer { client.close() }
            try await Task.sleep(for: .seconds(1))
            #expect(client.isUsable)
            #expect(try await client.send(get("/"), timeout: .seconds(2)).status == 204)
        }
    }

    @Test("a PING that is never acknowledged marks the connection dead and fails its requests")
    func unacknowledgedPing() async throws {
        try await withServer(settings: HTTP2ServerSettings(acknowledgesPings: false), handler: { _, _ in
            try? await Task.sleep(for: .seconds(10))
            return HTTP2Response(status: 200)
        }) { server in
            let client = try await connect(server, options: HTTP2ClientOptions(pingInterval: .milliseconds(100), pingTimeout: .milliseconds(300)))
            defer { client.close() }
            let started = ContinuousClock.now
            let error = await captureError { _ = try await client.send(get("/hang"), timeout: .seconds(10)) }
            guard case .connectionClosed(let message)? = error as? HTTP2Error else {
                Issue.record("expected .connectionClosed, got \(String(describing: error))")
                return
            }
            #expect(message.contains("PING"), "\(message)")
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(!client.isUsable)
        }
    }

    @Test("REFUSED_STREAM is reported as notProcessed; other resets as streamReset(code)")
    func streamResets() async throws {
        try await withServer(handler: { request, context in
            context.resetStream(request.streamID, errorCode: request.path == "/refuse" ? 7 : 8)
            return HTTP2Response(status: 200)
        }) { server in
            let client = try await connect(server)
            defer { client.close() }
            let refused = await captureError { _ = try await client.send(get("/refuse"), timeout: .seconds(5)) }
            #expect((refused as? HTTP2Error)?.isSafeToRetry == true, "\(String(describing: refused))")
            let cancelled = await captureError { _ = try await client.send(get("/cancel"), timeout: .seconds(5)) }
            #expect(cancelled as? HTTP2Error == .streamReset(8))
            #expect(client.isUsable)
        }
    }

    @Test("cancelling the calling task cancels the request")
    func taskCancellation() async throws {
        try await withServer(handler: { _, _ in
            try? await Task.sleep(for: .seconds(5))
            return HTTP2Response(status: 200)
        }) { server in
            let client = try await connect(server)
            defer { client.close() }
            let task = Task { try await client.send(get("/hang"), timeout: .seconds(30)) }
            try await Task.sleep(for: .milliseconds(100))
            let started = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(throws: HTTP2Error.cancelled) { try result.get() }
            #expect(ContinuousClock.now - started < .seconds(1))
            #expect(client.openStreams == 0)
        }
    }

    @Test("server shutdown sends GOAWAY and closes connections; clients notice and fail in-flight requests")
    func serverShutdown() async throws {
        let server = HTTP2Server(tls: Certs.serverTLS) { request, _ in
            if request.path == "/hang" { try? await Task.sleep(for: .seconds(5)) }
            return HTTP2Response(status: 200)
        }
        try await server.start()
        let client = try await connect(server)
        defer { client.close() }
        #expect(try await client.send(get("/"), timeout: .seconds(5)).status == 200)
        async let hanging = captureError { _ = try await client.send(get("/hang"), timeout: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        await server.shutdown()
        let error = await hanging
        #expect(error is HTTP2Error, "\(String(describing: error))")
        #expect(ContinuousClock.now - started < .seconds(2))
        _ = await pollUntil(timeout: .seconds(2), interval: .milliseconds(10)) { !client.isUsable }
        #expect(!client.isUsable)
        let refused = await captureError { _ = try await connect(server) }
        #expect(refused != nil, "nothing listens after shutdown")
    }

    @Test("a graceful server shutdown lets in-flight requests finish, then closes")
    func gracefulShutdown() async throws {
        let server = HTTP2Server(tls: Certs.serverTLS) { _, _ in
            try? await Task.sleep(for: .milliseconds(300))
            return HTTP2Response(status: 200)
        }
        try await server.start()
        let client = try await connect(server)
        defer { client.close() }
        async let inFlight = client.send(get("/slow"), timeout: .seconds(10))
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        await server.shutdown(gracePeriod: .seconds(5))
        #expect(ContinuousClock.now - started < .seconds(2), "shutdown returns once drained, not after the full grace period")
        #expect(try await inFlight.status == 200)
        #expect(!client.isUsable)
    }

    @Test("the server handles requests concurrently: a slow handler does not block other streams")
    func slowHandlerDoesNotBlock() async throws {
        try await withServer(handler: { request, _ in
            if request.path == "/slow" { try? await Task.sleep(for: .seconds(2)) }
            return HTTP2Response(status: 200, body: Array(request.path.utf8))
        }) { server in
            let client = try await connect(server)
            defer { client.close() }
            async let slow = client.send(get("/slow"), timeout: .seconds(10))
            try await Task.sleep(for: .milliseconds(50))
            let started = ContinuousClock.now
            let fast = try await client.send(get("/fast"), timeout: .seconds(5))
            #expect(ContinuousClock.now - started < .seconds(1))
            #expect(fast.body == Array("/fast".utf8))
            #expect(try await slow.status == 200)
        }
    }

    @Test("client certificates from PEM and PKCS#12 are seen by the server")
    func clientCertificates() async throws {
        var serverTLS = Certs.serverTLS
        serverTLS.clientCAFile = Certs.devCA
        serverTLS.requireClientCertificate = true
        try await withServer(tls: serverTLS, handler: { _, context in
            HTTP2Response(status: 200, body: Array((context.clientCertificateSubject ?? "none").utf8))
        }) { server in
            var pem = Certs.clientTLS
            pem.clientCertificate = .pem(certificateFile: Certs.path("dev-client.pem"), keyFile: Certs.path("dev-client.key"))
            var p12 = Certs.clientTLS
            p12.clientCertificate = .pkcs12(file: Certs.path("dev-client.p12"), password: "herald")
            for tls in [pem, p12] {
                let client = try await connect(server, tls: tls)
                let response = try await client.send(get("/who"), timeout: .seconds(5))
                client.close()
                let subject = String(decoding: response.body, as: UTF8.self)
                #expect(subject.contains("CN=com.example.herald.dev"), "subject was \(subject)")
            }
            var wrongPassword = Certs.clientTLS
            wrongPassword.clientCertificate = .pkcs12(file: Certs.path("dev-client.p12"), password: "nope")
            let passwordError = await captureError { _ = try await connect(server, tls: wrongPassword) }
            guard case .tls(let message)? = passwordError as? HTTP2Error else {
                Issue.record("expected a TLS error for a wrong PKCS#12 password, got \(String(describing: passwordError))")
                return
            }
            #expect(message.contains("password"))
            let anonymous = await captureError {
                let client = try await connect(server)
                _ = try await client.send(get("/who"), timeout: .seconds(5))
            }
            #expect(anonymous != nil, "a client without a certificate is rejected")
        }
    }
}
