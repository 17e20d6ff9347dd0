import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Synchronization

/// Sends pushes for one app to one APNs environment, over a small pool of HTTP/2 connections.
///
/// Token auth signs one provider token per key, shared by every connection and by every app on
/// that key (``ProviderTokenSources``); certificate auth presents the
/// app's client certificate during TLS. Rate limits and server errors are retried with backoff
/// within the push's deadline; requests the server did not process (GOAWAY, REFUSED_STREAM) are
/// resent on another connection; anything the server may have processed is never resent.
public final class APNsClient: Sendable {
    public let appID: String
    public let settings: PushSettings
    private let pool: APNsConnectionPool
    /// The provider tokens this client signs with (shared with other apps on the same key); nil
    /// for certificate auth.
    public let providerTokens: ProviderTokenSource?
    private let authority: String
    private let retry: RetryPolicy
    private let now: @Sendable () -> Date

    /// Loads the credentials; a missing or unreadable key or certificate fails here, not on the
    /// first push.
    ///
    /// - Parameter tokenSources: where the provider token for a token-auth key comes from; the
    ///   gateway passes one registry to every client, so apps on one key share its token.
    public init(appID: String, settings: PushSettings, poolSize: Int = 2, retry: RetryPolicy = RetryPolicy(),
                tokenSources: ProviderTokenSources = ProviderTokenSources(),
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        let endpoint = try settings.endpoint()
        var tls = TLSConfiguration(trustRoots: settings.caFile.map { .caFile($0) } ?? .system, serverName: endpoint.host)
        switch settings.auth {
        case .token(let teamID, let keyID, let key):
            let pem = try Self.text(of: key, what: "token key")
            do {
                providerTokens = try tokenSources.source(teamID: teamID, keyID: keyID, pem: pem)
            } catch {
                throw HeraldError.invalid("invalidPushCredentials", "the token key is not an EC P-256 PEM key (.p8)")
            }
        case .certificate(let identity):
            tls.clientCertificate = try Self.clientCertificate(identity)
            providerTokens = nil
        }
        do {
            try tls.check()
        } catch {
            throw HeraldError.invalid("invalidPushCredentials", "cannot load the push credentials: \(error)")
        }
        self.appID = appID
        self.settings = settings
        self.retry = retry
        self.now = now
        authority = endpoint.port == 443 ? endpoint.host : "\(endpoint.host):\(endpoint.port)"
        pool = APNsConnectionPool(host: endpoint.host, port: endpoint.port, tls: tls, size: poolSize)
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
                throw HeraldError.invalid("invalidPushCredentials", "pkcs12 must be the bundle's bytes in base64")
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
                throw HeraldError.invalid("invalidPushCredentials", "cannot read the \(what) file \(path)")
            }
            return text
        }
    }

    /// Connections currently open.
    public var openConnections: Int {
        get async { await pool.openConnections }
    }

    public func close() async {
        await pool.closeAll()
    }

    /// Sends one push, retrying what is safe to retry, and never waiting past `timeout`.
    public func send(_ push: APNsPush, timeout: Duration) async -> PushOutcome {
        let deadline = ContinuousClock.now + timeout
        var attempt = 0
        // What APNs said last, so a deadline that ends a backoff still reports the real refusal.
        var lastAnswer: PushOutcome?
        var resends = 0
        while true {
            attempt += 1
            let remaining = deadline - .now
            guard remaining > .zero else {
                return lastAnswer ?? PushOutcome(token: push.token, status: 504, reason: "timeout", attempts: attempt - 1)
            }
            var providerToken: ProviderToken?
            do {
                // Connecting counts against the push's deadline too.
                let connection = try await Self.within(remaining) { [pool] in try await pool.connection() }
                let remaining = deadline - .now
                guard remaining > .zero else { throw HTTP2Error.timeout }
                var headers = push.headers
                if let providerTokens {
                    let token = try providerTokens.token(now: now())
                    providerToken = token
                    headers.append(("authorization", "bearer \(token.jwt)"))
                }
                let request = HTTP2Request(method: "POST", path: push.path, authority: authority, headers: headers,
                                           body: [UInt8](push.payload))
                let outcome = Self.outcome(of: try await connection.send(request, timeout: remaining), push: push,
                                           attempts: attempt)
                if outcome.apnsReason == .tooManyProviderTokenUpdates { providerTokens?.refusedAsTooFrequent() }
                if outcome.succeeded || attempt >= retry.maximumAttempts { return outcome }
                if outcome.apnsReason == .expiredProviderToken, let providerToken {
                    // Renew only if the token is old enough; otherwise report the refusal.
                    if providerTokens?.expired(providerToken, now: now()) == true { continue }
                    return outcome
                }
                guard outcome.apnsReason?.isRetriable == true else { return outcome }
                lastAnswer = outcome
                try await Task.sleep(for: min(retry.delay(afterAttempt: attempt), deadline - .now))
            } catch let error as HTTP2Error {
                switch error {
                case .notProcessed where resends < Self.maximumResends:
                    // Not processed by the server: resending cannot duplicate, so it does not use up
                    // a retry; the deadline and this cap bound it.
                    resends += 1
                    attempt -= 1
                    continue
                case .connectFailed where attempt < retry.maximumAttempts, .queueFull where attempt < retry.maximumAttempts:
                    try? await Task.sleep(for: min(retry.delay(afterAttempt: attempt), max(.zero, deadline - .now)))
                case .timeout:
                    return lastAnswer ?? PushOutcome(token: push.token, status: 504, reason: "timeout", attempts: attempt)
                default:
                    return PushOutcome(token: push.token, status: 502, reason: Self.reason(for: error), attempts: attempt)
                }
            } catch is CancellationError {
                return PushOutcome(token: push.token, status: 504, reason: "cancelled", attempts: attempt)
            } catch {
                return PushOutcome(token: push.token, status: 500, reason: "\(error)", attempts: attempt)
            }
        }
    }

    /// Resends of requests the server did not process (GOAWAY, REFUSED_STREAM) allowed per push.
    static let maximumResends = 20

    /// Waits for `body` at most `limit`, then fails with `HTTP2Error.timeout`.
    ///
    /// `body` is left to finish on its own: a connection still being opened joins the pool and
    /// serves later pushes, while this push stops waiting for it.
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let first = FirstResult(continuation)
            let timer = Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                first.resume(with: .failure(HTTP2Error.timeout))
            }
            Task {
                let result: Result<T, any Error>
                do { result = .success(try await body()) } catch { result = .failure(error) }
                // No timer may outlive the wait it guards.
                timer.cancel()
                first.resume(with: result)
            }
        }
    }

    static func outcome(of response: HTTP2Response, push: APNsPush, attempts: Int) -> PushOutcome {
        let apnsID = response.header("apns-id") ?? push.id
        guard response.status != 200 else {
            return PushOutcome(token: push.token, status: 200, apnsID: apnsID, attempts: attempts)
        }
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return PushOutcome(token: push.token, status: response.status, apnsID: apnsID,
                           reason: body?["reason"] as? String ?? "HTTP\(response.status)",
                           timestamp: (body?["timestamp"] as? NSNumber)?.int64Value, attempts: attempts)
    }

    /// A short stable reason for a transport failure.
    static func reason(for error: HTTP2Error) -> String {
        switch error {
        case .notProcessed: return "notProcessed"
        case .timeout: return "timeout"
        case .connectionClosed: return "connectionClosed"
        case .streamReset: return "streamReset"
        case .tls: return "tlsFailure"
        case .alpnNotNegotiated: return "alpnNotNegotiated"
        case .connectFailed: return "connectFailed"
        case .queueFull: return "queueFull"
        case .protocolError: return "protocolError"
        case .invalidConfiguration: return "invalidConfiguration"
        }
    }
}

/// Resumes a continuation with whichever result arrives first, and ignores the rest.
private final class FirstResult<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(with result: Result<T, any Error>) {
        continuation.withLock { pending in
            let waiting = pending
            pending = nil
            return waiting
        }?.resume(with: result)
    }
}
