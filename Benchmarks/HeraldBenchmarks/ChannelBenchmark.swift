import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import HeraldPush

/// FCM and Web Push: Herald's clients sending to the sandbox beside `h2load` sending the same
/// requests (same path, headers, body bytes, connections and streams) to the same sandbox; and
/// Web Push encryptions per second beside a bare OpenSSL loop doing the same ECDH + HKDF +
/// AES-GCM per message (`Benchmarks/webpush-floor/floor.c`).
///
/// Herald's side includes everything a real send does per message: the FCM body addressed to its
/// token; for Web Push, a fresh ECDH key pair, the key derivation and AES-GCM (h2load resends one
/// encrypted body). The sandbox checks and stores each (Web Push: decrypts each), so both sides
/// share the same server cost.
enum ChannelBenchmark {
    static let goalRatio = 0.9
    static let encryptionGoalRatio = 0.8
    static let goalMinimumMessages = 20_000

    static func run(_ options: Options) async throws -> [ResultRow] {
        guard ChildProcess.hasTool("h2load") else {
            throw OptionsError("h2load is missing (Debian: apt-get install nghttp2-client)")
        }
        let certificates = URL(fileURLWithPath: options.certificates).standardizedFileURL.path
        let sandbox = try SandboxProcess(herald: options.herald, certificates: certificates)
        defer { sandbox.stop() }
        progress("channels: \(sandbox.kind) on 127.0.0.1:\(sandbox.port), admin \(sandbox.adminPort)")
        let loops = HTTP2EventLoops(name: "bench")
        var rows: [ResultRow] = []
        for connections in options.pushConnections {
            rows += try await fcm(sandbox: sandbox, certificates: certificates, connections: connections, loops: loops, options: options)
            rows += try await webPush(sandbox: sandbox, certificates: certificates, connections: connections, loops: loops,
                                      options: options)
        }
        rows.append(try encryption(options))
        await loops.shutdown()
        return rows
    }

    // MARK: FCM

    static func fcm(sandbox: SandboxProcess, certificates: String, connections: Int, loops: HTTP2EventLoops,
                    options: Options) async throws -> [ResultRow] {
        let origin = "https://127.0.0.1:\(sandbox.port)"
        var account = try FCMSettings.ServiceAccount.parse(
            try Data(contentsOf: URL(fileURLWithPath: "\(certificates)/dev-fcm-service-account.json")))
        account.tokenURI = origin + "/token"
        let settings = FCMSettings(serviceAccount: .content(account), endpoint: origin, caFile: "\(certificates)/dev-ca.pem")
        let client = try FCMClient(appID: "bench.fcm", settings: settings, poolSize: connections, loops: loops)
        defer { Task { await client.close() } }
        let push = try ChannelPush(type: .alert, aps: APS(alert: .content(.init(title: "Benchmark", body: "an FCM message"))),
                                   custom: ["order": .number(42)], collapseID: "bench")
        let template = try FCMMessage(token: "fcm-bench-0", push: push, now: Date())
        let tokens = (0..<16).map { "fcm-bench-\($0)" }
        let messages = try (0..<options.channelMessages).map { try template.addressed(to: tokens[$0 % tokens.count]) }
        _ = await client.send(Array(messages.prefix(200)), timeout: .seconds(30))  // warm: connections and the access token

        let accessToken = try await client.accessToken()
        let shape = "\(connections) connection\(connections == 1 ? "" : "s") × \(options.streams) streams"
        progress("fcm → sandbox: h2load, \(shape), \(Format.grouped(messages.count)) requests")
        let reference = try H2Load.run(
            uris: ["\(origin)/v1/projects/\(account.projectID)/messages:send"],
            headers: [("authorization", "Bearer \(accessToken.value)"), ("content-type", "application/json")],
            body: Data(template.body()), connections: connections, streams: options.streams, requests: messages.count,
            scratch: options.scratch)
        progress("fcm → sandbox: herald FCMClient, \(shape)")
        let (rate, failures) = await drive(messages.count, connections: connections, streams: options.streams) { range in
            await client.send(Array(messages[range]), timeout: .seconds(60))
        }
        return [row("FCM HTTP v1 → sandbox (TLS, loopback), \(shape), \(Format.count(messages.count)) messages",
                    rate: rate, failures: failures, reference: reference, connections: connections, judged: messages.count >= goalMinimumMessages)]
    }

    // MARK: Web Push

    static func webPush(sandbox: SandboxProcess, certificates: String, connections: Int, loops: HTTP2EventLoops,
                        options: Options) async throws -> [ResultRow] {
        let subscription = try await subscribe(adminPort: sandbox.adminPort)
        let key = try ES256Key.generate()
        let settings = WebPushSettings(subject: "mailto:bench@herald.invalid", vapidPrivateKey: try key.privateKeyPEM(),
                                       vapidPublicKey: Base64URL.encode(try key.publicKeyPoint),
                                       caFile: "\(certificates)/dev-ca.pem", allowedHosts: ["127.0.0.1"])
        let pools = WebPushPools(loops: loops, connectionsPerOrigin: connections)
        defer { Task { await pools.closeAll() } }
        let client = try WebPushClient(appID: "bench.web", settings: settings, pools: pools)
        let push = try ChannelPush(type: .alert, aps: APS(alert: .content(.init(title: "Benchmark", body: "a Web Push message"))),
                                   custom: ["order": .number(42)], collapseID: "bench")
        let template = try WebPushMessage(subscription: subscription, push: push, now: Date())
        let messages = Array(repeating: template, count: options.channelMessages)
        _ = await client.send(Array(messages.prefix(200)), timeout: .seconds(30))

        // h2load resends one message, encrypted once, with the same VAPID authorization.
        let point = try require(WebPushSubscription.decodeBase64URL(subscription.keys.p256dh))
        let auth = try require(WebPushSubscription.decodeBase64URL(subscription.keys.auth))
        let body = try WebPushEncryption.encrypt(plaintext: template.plaintext, subscriberPublicKey: point, authSecret: auth)
        let vapid = try VAPIDToken.sign(audience: subscription.origin, subject: settings.subject,
                                        expiresAt: Date().addingTimeInterval(3600), key: key)
        let shape = "\(connections) connection\(connections == 1 ? "" : "s") × \(options.streams) streams"
        progress("web push → sandbox: h2load, \(shape), \(Format.grouped(messages.count)) requests")
        let reference = try H2Load.run(
            uris: [subscription.endpoint],
            headers: [("authorization", vapid.authorizationHeader), ("content-encoding", "aes128gcm"),
                      ("content-type", "application/octet-stream"), ("ttl", String(template.timeToLive)),
                      ("urgency", template.urgency), ("topic", "bench")],
            body: Data(body), connections: connections, streams: options.streams, requests: messages.count, scratch: options.scratch)
        progress("web push → sandbox: herald WebPushClient, \(shape)")
        let (rate, failures) = await drive(messages.count, connections: connections, streams: options.streams) { range in
            await client.send(Array(messages[range]), timeout: .seconds(60))
        }
        return [row("Web Push → sandbox (TLS, loopback, aes128gcm + VAPID), \(shape), \(Format.count(messages.count)) messages",
                    rate: rate, failures: failures, reference: reference, connections: connections, judged: messages.count >= goalMinimumMessages)]
    }

    /// A subscription from the sandbox's admin API, as a browser would get one.
    static func subscribe(adminPort: Int) async throws -> WebPushSubscription {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(adminPort)/webpush/subscriptions")!)
        request.httpMethod = "POST"
        request.httpBody = Data("{}".utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONDecoder().decode(WebPushSubscription.self, from: data)
    }

    // MARK: Encryption

    static func encryption(_ options: Options) throws -> ResultRow {
        let count = options.channelMessages
        let subscriber = try ES256Key.generate()
        let point = try subscriber.publicKeyPoint
        let auth = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let plaintext = [UInt8](repeating: UInt8(ascii: "x"), count: 120)
        var checksum = 0
        let started = ContinuousClock.now
        for _ in 0..<count {
            checksum &+= Int(try WebPushEncryption.encrypt(plaintext: plaintext, subscriberPublicKey: point, authSecret: auth).last ?? 0)
        }
        let seconds = (ContinuousClock.now - started).seconds
        let rate = Double(count) / seconds
        progress(String(format: "web push encryption: herald %.0f/s (checksum %d)", rate, checksum))
        var reference = Double.nan
        if let floor = options.webPushFloor, FileManager.default.isExecutableFile(atPath: floor) {
            let output = try ChildProcess.run(executable: floor, ["\(count)"])
            reference = output.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? .nan
        }
        let ratio = rate / reference
        return ResultRow(benchmark: "Web Push encryption (P-256 ECDH + HKDF-SHA256 + AES-128-GCM, 120-byte payload), \(Format.count(count)) messages",
                         measured: Format.rate(rate, unit: "encryptions/s"),
                         reference: reference.isFinite ? "\(Format.rate(reference, unit: "encryptions/s")) bare OpenSSL loop (floor.c)"
                             : "no bare loop (--webpush-floor)",
                         ratio: reference.isFinite ? ratio : nil, goal: "≥ 0.80× the bare loop",
                         met: count >= goalMinimumMessages && reference.isFinite ? ratio >= encryptionGoalRatio : nil)
    }

    // MARK: Driving and rows

    /// Sends `count` messages in chunks of one full window (connections × streams), two chunks in
    /// flight as the gateway does; the rate of successes, and the failures by reason.
    static func drive(_ count: Int, connections: Int, streams: Int,
                      send: @escaping @Sendable (Range<Int>) async -> [PushOutcome]) async -> (rate: Double, failures: [String: Int]) {
        let chunk = max(1, connections * streams)
        let ranges = stride(from: 0, to: count, by: chunk).map { $0..<min($0 + chunk, count) }
        let started = ContinuousClock.now
        var succeeded = 0
        var failures: [String: Int] = [:]
        await withTaskGroup(of: [PushOutcome].self) { group in
            var next = 0
            func add() {
                guard next < ranges.count else { return }
                let range = ranges[next]
                next += 1
                group.addTask { await send(range) }
            }
            add()
            add()
            for await outcomes in group {
                for outcome in outcomes {
                    if outcome.succeeded { succeeded += 1 } else { failures[outcome.reason ?? "HTTP\(outcome.status)", default: 0] += 1 }
                }
                add()
            }
        }
        return (Double(succeeded) / (ContinuousClock.now - started).seconds, failures)
    }

    static func row(_ label: String, rate: Double, failures: [String: Int], reference: H2Load.Result, connections: Int,
                    judged: Bool) -> ResultRow {
        let failed = failures.values.reduce(0, +)
        let failureText = failed == 0 ? "0 failed"
            : "\(failed) failed: " + failures.sorted { $0.value > $1.value }.prefix(3).map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        let ratio = rate / reference.rate
        return ResultRow(benchmark: "\(label): throughput",
                         measured: "\(Format.rate(rate, unit: "messages/s")) (\(failureText))",
                         reference: "\(Format.rate(reference.rate, unit: "req/s")) h2load -c\(connections) -t\(reference.threads), same requests (\(reference.requests - reference.succeeded) failed)",
                         ratio: ratio, goal: "≥ 0.90× h2load", met: judged ? (ratio >= goalRatio && failed == 0) : nil)
    }
}

private func require<T>(_ value: T?, _ what: String = "a value") throws -> T {
    guard let value else { throw OptionsError("missing \(what)") }
    return value
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
