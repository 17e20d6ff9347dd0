import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Synchronization

/// Sends FCM HTTP v1 messages for one app, over a small pool of HTTP/2 connections to the FCM
/// endpoint, with an access token its service account shares with other apps.
///
/// FCM's answers, as its documentation gives them:
/// - 200: sent;
/// - 404 `UNREGISTERED`, 400 `INVALID_ARGUMENT` naming the token: the token is dead;
/// - 429 `QUOTA_EXCEEDED` / `RESOURCE_EXHAUSTED`: the whole project waits out `Retry-After`,
///   then the messages are tried again;
/// - 401: the access token is renewed, once per send;
/// - 500, 503: tried again with backoff;
/// - 403 `SENDER_ID_MISMATCH`: a settings error, reported as it is.
public final class FCMClient: Sendable {
    public let appID: String
    public let settings: FCMSettings
    public let account: FCMSettings.ServiceAccount
    private let pool: PushConnectionPool
    private let tokens: OAuthTokenSource
    private let authority: String
    private let path: String
    private let attempts: PushAttempts
    private let projectHold = ServiceHold()
    private let loops: HTTP2EventLoops
    private let ownsLoops: Bool

    /// Loads the service account (reads files: call it off the cooperative pool).
    ///
    /// - Throws: `HeraldError` `invalidFCMServiceAccount` or `invalidFCMSettings` when the account or
    ///   its key does not load.
    public init(appID: String, settings: FCMSettings, poolSize: Int = 2, retry: RetryPolicy = RetryPolicy(),
                tokenSources: OAuthTokenSources = OAuthTokenSources(), loops: HTTP2EventLoops? = nil) throws {
        let account = try settings.account()
        let endpoint = try settings.messagesEndpoint()
        let credential: HTTP2ClientTLS
        do {
            credential = try HTTP2ClientTLS(TLSConfiguration(trustRoots: settings.caFile.map { .caFile($0) } ?? .system,
                                                             serverName: endpoint.host))
        } catch {
            throw HeraldError.invalid(.invalidFCMSettings, "cannot load fcm.caFile: \(error)")
        }
        ownsLoops = loops == nil
        let loops = loops ?? HTTP2EventLoops(count: 1, name: "fcm \(appID)")
        do {
            tokens = try tokenSources.source(for: account, caFile: settings.caFile, loops: loops)
        } catch let error as HeraldError {
            throw error
        } catch {
            throw HeraldError.invalid(.invalidFCMServiceAccount, "the service account's private_key is not an RSA PEM key")
        }
        self.appID = appID
        self.settings = settings
        self.account = account
        self.loops = loops
        attempts = PushAttempts(retry: retry)
        authority = endpoint.port == 443 ? endpoint.host : "\(endpoint.host):\(endpoint.port)"
        path = "/v1/projects/\(account.projectID)/messages:send"
        pool = PushConnectionPool(host: endpoint.host, port: endpoint.port, tls: credential, loops: loops, size: poolSize)
    }

    /// Connections currently open.
    public var openConnections: Int { pool.openConnections }

    /// The access token sends use now (fetched when there is none): `herald doctor` checks it.
    public func accessToken() async throws -> AccessToken { try await tokens.token() }

    /// Sends messages, retrying what is safe to retry, never waiting past `timeout`. One outcome
    /// per message, in order; `validateOnly` asks FCM to check without delivering (`herald doctor`).
    public func send(_ messages: [FCMMessage], timeout: Duration, validateOnly: Bool = false) async -> [PushOutcome] {
        let renewed = Mutex(false)
        let hold = projectHold
        let holds = { (pending: [PushAttempts.Pending]) -> [Int: ContinuousClock.Instant] in
            guard let until = hold.heldUntil, until > .now else { return [:] }
            return Dictionary(uniqueKeysWithValues: pending.map { ($0.index, until) })
        }
        return await attempts.run(addresses: messages.map(\.token), timeout: timeout, holds: holds) { due, limit in
            let token: AccessToken
            do {
                token = try await tokens.token()
            } catch {
                return due.map { Self.verdict(onTokenError: error, pending: $0, address: messages[$0.index].token,
                                              retry: attempts.retry) }
            }
            let shared = HTTP2HeaderBlock([("authorization", "Bearer \(token.value)"), ("content-type", "application/json")])
            let requests = due.map { pending in
                HTTP2Request(method: "POST", path: path, authority: authority, sharedHeaders: shared,
                             body: messages[pending.index].body(validateOnly: validateOnly))
            }
            let answers = await pool.send(requests, avoiding: Set(due.compactMap(\.avoid)), limit: limit)
            var verdicts: [PushAttempts.Verdict] = []
            var refusedToken = false
            for (pending, answer) in zip(due, answers) {
                let address = messages[pending.index].token
                switch answer.result {
                case .failure(let error):
                    verdicts.append(attempts.verdict(on: error, connection: answer.connection, pending: pending, address: address))
                case .success(let response):
                    let outcome = Self.outcome(of: response, token: address, attempts: pending.attempts + 1)
                    if response.status == 200 {
                        verdicts.append(.done(outcome))
                    } else if response.status == 401, !renewed.withLock({ $0 }) {
                        refusedToken = true
                        verdicts.append(.retry(after: .zero, answer: outcome))
                    } else {
                        verdicts.append(attempts.verdict(onWait: response, outcome: outcome, pending: pending,
                                                         rateLimited: { hold.hold(until: $0) }) ?? .done(outcome))
                    }
                }
            }
            if refusedToken {
                // Once per send: a token refused again is a settings problem, not an expiry.
                renewed.withLock { $0 = true }
                _ = try? await tokens.renewed(after: token)
            }
            return verdicts
        }
    }

    static func verdict(onTokenError error: any Error, pending: PushAttempts.Pending, address: String,
                        retry: RetryPolicy) -> PushAttempts.Verdict {
        if case AccessTokenError.unreachable = error {
            return .retry(after: retry.delay(afterAttempt: pending.attempts + 1),
                          answer: PushOutcome(token: address, status: 502, reason: FCMReason.oauthTokenUnavailable, attempts: pending.attempts + 1))
        }
        return .done(PushOutcome(token: address, status: 401, reason: FCMReason.oauthTokenRefused, attempts: pending.attempts + 1))
    }

    /// Reads FCM's answer: the message name on success, the `FcmError` code (else the status) on failure.
    static func outcome(of response: HTTP2Response, token: String, attempts: Int) -> PushOutcome {
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        guard response.status != 200 else {
            return PushOutcome(token: token, status: 200, apnsID: body?["name"] as? String, attempts: attempts)
        }
        let error = body?["error"] as? [String: Any]
        let details = error?["details"] as? [[String: Any]] ?? []
        let code = details.lazy.compactMap { $0["errorCode"] as? String }.first ?? error?["status"] as? String
        return PushOutcome(token: token, status: response.status, reason: code ?? "HTTP\(response.status)", attempts: attempts,
                           detail: error?["message"] as? String)
    }

    public func close() async {
        await pool.closeAll()
        if ownsLoops { await loops.shutdown() }
    }
}

/// FCM's error codes Herald acts on, and its own reasons for the token endpoint.
public enum FCMReason {
    public static let unregistered = "UNREGISTERED"
    public static let invalidArgument = "INVALID_ARGUMENT"
    public static let senderIDMismatch = "SENDER_ID_MISMATCH"
    public static let quotaExceeded = "QUOTA_EXCEEDED"
    /// The token endpoint refused the service account's assertion.
    public static let oauthTokenRefused = "oauthTokenRefused"
    /// The token endpoint did not answer.
    public static let oauthTokenUnavailable = "oauthTokenUnavailable"

    /// Whether FCM's answer means the registration token is dead: `UNREGISTERED`, or
    /// `INVALID_ARGUMENT` about the registration token ("The registration token is not a valid FCM
    /// registration token"), not about the message.
    public static func invalidatesToken(_ outcome: PushOutcome) -> Bool {
        if outcome.reason == unregistered { return true }
        return outcome.reason == invalidArgument && (outcome.detail?.lowercased().contains("registration token") ?? false)
    }
}
