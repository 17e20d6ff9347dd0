import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Synchronization

/// Sends pushes for one app to one APNs environment, over a small pool of HTTP/2 connections.
///
/// Token auth signs one provider token per key, shared by every connection and by every app on
/// that key (``ProviderTokenSources``); certificate auth presents the app's client certificate
/// during TLS, loaded once into one `SSL_CTX` that all of the app's connections share.
///
/// A batch of pushes crosses onto the connections' event loops once per attempt round, not once
/// per push, and is answered once: no task, timer or continuation per push. Deadlines are the
/// loop's, per stream. Rate limits and server errors are retried with backoff within the push's
/// deadline (a `429` holds that device token only); requests the server did not process (GOAWAY,
/// REFUSED_STREAM, still queued when an attempt ran out) are resent on another connection;
/// anything the server may have processed is never resent.
public final class APNsClient: Sendable {
    public let appID: String
    public let settings: PushSettings
    private let pool: PushConnectionPool
    /// The provider tokens this client signs with (shared with other apps on the same key); nil
    /// for certificate auth.
    public let providerTokens: ProviderTokenSource?
    /// The app's broadcast channels on APNs' management host; nil with certificate auth, which
    /// that API does not take.
    public let channels: APNsChannelManager?
    private let authority: String
    private let retry: RetryPolicy
    private let now: @Sendable () -> Date
    private let loops: HTTP2EventLoops
    private let ownsLoops: Bool
    private let backoff = TokenBackoff()
    private let attempts: PushAttempts
    private let accepted = Atomic<Bool>(false)
    private let headerBlocks = Mutex<(jwt: String?, blocks: [HeaderKind: HTTP2HeaderBlock])>((nil, [:]))

    /// Loads the credentials; a missing or unreadable key or certificate fails here, not on the
    /// first push. Loading reads files: call it off Swift's cooperative pool (`HTTP2EventLoops.run`).
    ///
    /// - Parameters:
    ///   - tokenSources: where the provider token for a token-auth key comes from; the gateway
    ///     passes one registry to every client, so apps on one key share its token.
    ///   - loops: the event loops the connections run on, shared with other clients; nil gives
    ///     this client one loop of its own, stopped by `close()`.
    ///   - events: told of each connection attempt and each GOAWAY, for metrics.
    public init(appID: String, settings: PushSettings, poolSize: Int = 2, retry: RetryPolicy = RetryPolicy(),
                tokenSources: ProviderTokenSources = ProviderTokenSources(), loops: HTTP2EventLoops? = nil,
                events: APNsConnectionEvents = APNsConnectionEvents(),
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        let endpoint = try settings.endpoint()
        var tls = TLSConfiguration(trustRoots: settings.caFile.map { .caFile($0) } ?? .system, serverName: endpoint.host)
        switch settings.auth {
        case .token(let teamID, let keyID, let key):
            let pem = try Self.text(of: key, what: "token key")
            do {
                providerTokens = try tokenSources.source(teamID: teamID, keyID: keyID, pem: pem)
            } catch {
                throw HeraldError.invalid(.invalidPushCredentials, "the token key is not an EC P-256 PEM key (.p8)")
            }
        case .certificate(let identity):
            tls.clientCertificate = try Self.clientCertificate(identity)
            providerTokens = nil
        }
        let credential: HTTP2ClientTLS
        do {
            credential = try HTTP2ClientTLS(tls)
        } catch {
            throw HeraldError.invalid(.invalidPushCredentials, "cannot load the push credentials: \(error)")
        }
        self.appID = appID
        self.settings = settings
        self.retry = retry
        attempts = PushAttempts(retry: retry)
        self.now = now
        self.loops = loops ?? HTTP2EventLoops(count: 1, name: "apns \(appID)")
        ownsLoops = loops == nil
        authority = endpoint.port == 443 ? endpoint.host : "\(endpoint.host):\(endpoint.port)"
        pool = PushConnectionPool(host: endpoint.host, port: endpoint.port, tls: credential, loops: self.loops, size: poolSize,
                                  events: events)
        if let providerTokens {
            let channelsEndpoint = try settings.channelsEndpoint()
            var channelsTLS = tls
            channelsTLS.serverName = channelsEndpoint.host
            channels = APNsChannelManager(bundleID: appID, endpoint: channelsEndpoint, tls: try HTTP2ClientTLS(channelsTLS),
                                          loops: self.loops, providerTokens: providerTokens)
        } else {
            channels = nil
        }
    }

    /// The TLS client identity for certificate auth, from files or uploaded content.
    static func clientCertificate(_ identity: PushSettings.ClientIdentity) throws -> TLSConfiguration.ClientCertificate {
        switch identity {
        case .pem(.file(let certificate), let key) where key == nil || key?.path != nil:
            return .pem(certificateFile: certificate, keyFile: key?.path ?? certificate)
        case .pem(let certificate, let key):
            let certificateText = try text(of: certificate, what: "certificate")
            return .pemContent(certificate: certificateText,
                               key: try key.map { try text(of: $0, what: "private key") } ?? certificateText)
        case .pkcs12(.file(let path), let password):
            return .pkcs12(file: path, password: password ?? "")
        case .pkcs12(.content(let base64), let password):
            guard let bytes = Data(base64Encoded: base64, options: .ignoreUnknownCharacters), !bytes.isEmpty else {
                throw HeraldError.invalid(.invalidPushCredentials, "pkcs12 must be the bundle's bytes in base64")
            }
            return .pkcs12Content([UInt8](bytes), password: password ?? "")
        }
    }

    /// A credential's text: uploaded content as given, or a file's contents.
    static func text(of credential: PushSettings.Credential, what: String) throws -> String {
        switch credential {
        case .content(let text): return text
        case .file(let path):
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw HeraldError.invalid(.invalidPushCredentials, "cannot read the \(what) file \(path)")
            }
            return text
        }
    }

    /// True once APNs accepted a push sent with these settings: the environment is right, so a
    /// `BadDeviceToken` is about the token (``APNsReason/invalidatesToken(environmentConfirmed:)``).
    public var environmentConfirmed: Bool { accepted.load(ordering: .relaxed) }

    /// Connections currently open.
    public var openConnections: Int { pool.openConnections }

    public func close() async {
        await pool.closeAll()
        await channels?.close()
        if ownsLoops { await loops.shutdown() }
    }

    /// Sends one push; see ``send(_:timeout:)-([APNsPush],_)``.
    public func send(_ push: APNsPush, timeout: Duration) async -> PushOutcome {
        await send([push], timeout: timeout)[0]
    }

    /// Sends pushes, retrying what is safe to retry, and never waiting past `timeout` for any of
    /// them. Returns one outcome per push, in order.
    public func send(_ pushes: [APNsPush], timeout: Duration) async -> [PushOutcome] {
        let backoff = self.backoff
        // A token APNs rate-limited waits out its hold; the rest go at once.
        let holds = { (pending: [PushAttempts.Pending]) -> [Int: ContinuousClock.Instant] in
            guard backoff.holdsAny else { return [:] }
            let held = backoff.holds(for: pending.map { pushes[$0.index].token }, now: .now)
            var byIndex: [Int: ContinuousClock.Instant] = [:]
            for push in pending { if let until = held[pushes[push.index].token] { byIndex[push.index] = until } }
            return byIndex
        }
        return await attempts.run(addresses: pushes.map(\.token), timeout: timeout, holds: holds) { due, limit in
            let answers = await attempt(due, of: pushes, limit: limit)
            return zip(due, answers).map { pending, answer in judge(answer, for: pending, token: pushes[pending.index].token) }
        }
    }

    /// What one attempt produced for one push.
    private struct Answer {
        var result: Result<HTTP2Response, HTTP2Error>
        var connection: ObjectIdentifier?
        var providerToken: ProviderToken?
    }

    /// Sends `due` once: one provider token and one header block per push kind for the round, the
    /// batch split over the pool's connections, one wait for all their answers.
    private func attempt(_ due: [PushAttempts.Pending], of pushes: [APNsPush], limit: Duration) async -> [Answer] {
        let providerToken: ProviderToken?
        do {
            providerToken = try providerTokens?.token(now: now())
        } catch {
            return due.map { _ in Answer(result: .failure(.invalidConfiguration("cannot sign the provider token: \(error)"))) }
        }
        // Pushes of a batch mostly share one kind and one payload (one entry to many tokens): both
        // are looked up and copied once, and only again when they change.
        let kinds = due.map { HeaderKind(pushes[$0.index]) }
        var distinctKinds: [HeaderKind] = []
        for kind in kinds where distinctKinds.last != kind && !distinctKinds.contains(kind) { distinctKinds.append(kind) }
        let blocks = headerBlocks(for: distinctKinds, jwt: providerToken?.jwt)
        var payload: (data: Data, bytes: [UInt8])?
        let requests = zip(due, kinds).map { pending, kind -> HTTP2Request in
            let push = pushes[pending.index]
            if payload?.data != push.payload { payload = (push.payload, [UInt8](push.payload)) }
            return HTTP2Request(method: "POST", path: push.path, authority: authority, headers: push.ownHeaders,
                                sharedHeaders: blocks.first { $0.kind == kind }?.block, uniqueHeaders: [("apns-id", push.id)],
                                body: payload!.bytes)
        }
        return await pool.send(requests, avoiding: Set(due.compactMap(\.avoid)), limit: limit).map {
            Answer(result: $0.result, connection: $0.connection, providerToken: providerToken)
        }
    }

    /// Turns one attempt's answer into a final outcome, or into another try (with its wait).
    private func judge(_ answer: Answer, for pending: PushAttempts.Pending, token: String) -> PushAttempts.Verdict {
        let response: HTTP2Response
        switch answer.result {
        case .success(let received): response = received
        case .failure(let error): return attempts.verdict(on: error, connection: answer.connection, pending: pending, address: token)
        }
        let attempt = pending.attempts + 1
        let outcome = Self.outcome(of: response, token: token, attempts: attempt)
        if outcome.succeeded, !environmentConfirmed { accepted.store(true, ordering: .relaxed) }
        if outcome.apnsReason == .tooManyProviderTokenUpdates { providerTokens?.refusedAsTooFrequent() }
        if outcome.succeeded { return .done(outcome) }
        // A jittered wait draws random bytes: only for an answer that needs one.
        let wait = retry.delay(afterAttempt: attempt)
        // APNs rate-limits this device: hold the token (for later batches too), not the connection.
        if outcome.apnsReason == .tooManyRequests { backoff.hold(token, until: .now + wait) }
        if attempt >= retry.maximumAttempts { return .done(outcome) }
        if outcome.apnsReason == .expiredProviderToken, let used = answer.providerToken {
            // Renew only if the token is old enough; otherwise report the refusal.
            return providerTokens?.expired(used, now: now()) == true ? .retry(after: .zero, answer: nil) : .done(outcome)
        }
        guard outcome.apnsReason?.isRetriable == true else { return .done(outcome) }
        return .retry(after: wait, answer: outcome)
    }

    /// Pushes of one kind share their headers' encoding.
    private struct HeaderKind: Hashable {
        var type: String, topic: String, priority: Int

        init(_ push: APNsPush) {
            (type, topic, priority) = (push.type.rawValue, push.topic, push.priority)
        }
    }

    /// The shared header block for each of `kinds` with the current provider token, built once per
    /// token and kind.
    private func headerBlocks(for kinds: [HeaderKind], jwt: String?) -> [(kind: HeaderKind, block: HTTP2HeaderBlock)] {
        headerBlocks.withLock { cache in
            if cache.jwt != jwt { cache = (jwt, [:]) }
            return kinds.map { kind in
                if let block = cache.blocks[kind] { return (kind, block) }
                var headers: [HTTP2Header] = [("apns-push-type", kind.type), ("apns-topic", kind.topic),
                                              ("apns-priority", String(kind.priority))]
                if let jwt { headers.insert(("authorization", "bearer \(jwt)"), at: 0) }
                let block = HTTP2HeaderBlock(headers)
                cache.blocks[kind] = block
                return (kind, block)
            }
        }
    }

    /// Reads `:status` and `apns-id`; the body is parsed only when APNs refused the push.
    static func outcome(of response: HTTP2Response, token: String, attempts: Int) -> PushOutcome {
        let apnsID = response.header("apns-id")
        guard response.status != 200 else {
            return PushOutcome(token: token, status: 200, apnsID: apnsID, attempts: attempts)
        }
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return PushOutcome(token: token, status: response.status, apnsID: apnsID,
                           reason: body?["reason"] as? String ?? "HTTP\(response.status)",
                           timestamp: (body?["timestamp"] as? NSNumber)?.int64Value, attempts: attempts)
    }

    /// A short stable reason for a transport failure.
    static func reason(for error: HTTP2Error) -> String {
        let reason: HeraldPushReason
        switch error {
        case .notProcessed: reason = .notProcessed
        case .timeout: reason = .timeout
        case .connectionClosed: reason = .connectionClosed
        case .streamReset: reason = .streamReset
        case .tls: reason = .tlsFailure
        case .alpnNotNegotiated: reason = .alpnNotNegotiated
        case .connectFailed: reason = .connectFailed
        case .queueFull: reason = .queueFull
        case .protocolError: reason = .protocolError
        case .invalidConfiguration: reason = .invalidConfiguration
        case .cancelled: reason = .cancelled
        }
        return reason.rawValue
    }
}
