import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Synchronization

/// An OAuth 2.0 access token for FCM, and when it stops being good.
public struct AccessToken: Hashable, Sendable {
    public var value: String
    public var expiresAt: Date
}

/// Why no access token could be had.
public enum AccessTokenError: Error, Sendable, CustomStringConvertible {
    /// The token endpoint refused the assertion (a 4xx: a revoked key, a wrong `token_uri`).
    case refused(status: Int, error: String)
    /// No answer (transport failure, deadline): worth trying again.
    case unreachable(String)
    /// The key cannot sign.
    case signing(String)

    public var description: String {
        switch self {
        case .refused(let status, let error): return "the token endpoint refused the assertion (\(status) \(error))"
        case .unreachable(let detail): return "the token endpoint did not answer: \(detail)"
        case .signing(let detail): return "cannot sign the assertion: \(detail)"
        }
    }
}

/// FCM access tokens for one service account: the RS256 assertion posted to the account's
/// `token_uri` (Google's JWT bearer grant), the token cached until a few minutes before it
/// expires, and one fetch at a time however many sends ask.
///
/// ```swift
/// let token = try await source.token(now: Date())   // "authorization: Bearer \(token.value)"
/// ```
public final class OAuthTokenSource: Sendable {
    private let account: FCMSettings.ServiceAccount
    private let key: RS256Key
    private let pool: PushConnectionPool
    private let authority: String
    private let path: String
    private let state = Mutex<(current: AccessToken?, fetching: Task<AccessToken, any Error>?)>((nil, nil))
    private let fetches = Atomic<Int>(0)

    /// A token is renewed this long before it expires.
    static let renewalMargin: TimeInterval = 300

    init(account: FCMSettings.ServiceAccount, key: RS256Key, tls: HTTP2ClientTLS, loops: HTTP2EventLoops) throws {
        guard let url = URL(string: account.tokenURI), let host = url.host else {
            throw HeraldError.invalid(.invalidFCMServiceAccount, "token_uri must be an https URL")
        }
        let port = url.port ?? 443
        self.account = account
        self.key = key
        authority = port == 443 ? host : "\(host):\(port)"
        path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?\($0)" } ?? "")
        pool = PushConnectionPool(host: host, port: port, tls: tls, loops: loops, size: 1)
    }

    /// Tokens fetched so far.
    public var fetched: Int { fetches.load(ordering: .relaxed) }

    /// The cached token, or a new one when it is missing or about to expire.
    public func token(now: Date = Date()) async throws -> AccessToken {
        try await current(now: now, replacing: nil)
    }

    /// A new token in place of `used`, which the service refused (401); a token already renewed
    /// by another send is returned as it is, so a burst of 401s fetches once.
    public func renewed(after used: AccessToken, now: Date = Date()) async throws -> AccessToken {
        try await current(now: now, replacing: used)
    }

    private func current(now: Date, replacing used: AccessToken?) async throws -> AccessToken {
        enum Step {
            case cached(AccessToken)
            case wait(Task<AccessToken, any Error>)
        }
        let step: Step = state.withLock { state in
            if let current = state.current, current != used, current.expiresAt.timeIntervalSince(now) > Self.renewalMargin {
                return .cached(current)
            }
            if let fetching = state.fetching { return .wait(fetching) }
            let fetching = Task { try await self.fetch(now: now) }
            state.fetching = fetching
            return .wait(fetching)
        }
        // The common case: the cached token, with no task and no wait.
        let task: Task<AccessToken, any Error>
        switch step {
        case .cached(let token): return token
        case .wait(let fetching): task = fetching
        }
        do {
            let token = try await task.value
            state.withLock { state in
                if state.fetching == task { state.fetching = nil }
                if state.current.map({ $0.expiresAt < token.expiresAt }) ?? true { state.current = token }
            }
            return token
        } catch {
            state.withLock { state in if state.fetching == task { state.fetching = nil } }
            throw error
        }
    }

    private func fetch(now: Date) async throws -> AccessToken {
        fetches.add(1, ordering: .relaxed)
        let assertion: String
        do {
            assertion = try OAuthAssertion.sign(clientEmail: account.clientEmail, scope: FCMSettings.scope,
                                                audience: account.tokenURI, issuedAt: now, keyID: account.privateKeyID, key: key)
        } catch {
            throw AccessTokenError.signing("\(error)")
        }
        let form = "grant_type=" + Self.formEncoded("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + assertion
        let request = HTTP2Request(method: "POST", path: path, authority: authority,
                                   headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
        let answer = await pool.send([request], limit: .seconds(10))[0]
        let response: HTTP2Response
        switch answer.result {
        case .success(let received): response = received
        case .failure(let error): throw AccessTokenError.unreachable("\(error)")
        }
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        guard response.status == 200, let value = body?["access_token"] as? String, !value.isEmpty else {
            if (500..<600).contains(response.status) { throw AccessTokenError.unreachable("HTTP \(response.status)") }
            throw AccessTokenError.refused(status: response.status, error: body?["error"] as? String ?? "HTTP\(response.status)")
        }
        let lifetime = (body?["expires_in"] as? NSNumber)?.doubleValue ?? 3600
        return AccessToken(value: value, expiresAt: now.addingTimeInterval(lifetime))
    }

    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    func close() async { await pool.closeAll() }
}

/// One ``OAuthTokenSource`` per service account (key, token endpoint and trust), shared by every
/// app on that account, as Google expects one token per account.
public final class OAuthTokenSources: Sendable {
    private struct AccountKey: Hashable {
        var clientEmail: String
        var tokenURI: String
        var caFile: String?
        var digest: [UInt8]
    }

    private let sources = Mutex<[AccountKey: OAuthTokenSource]>([:])

    public init() {}

    /// The source for this account, made on first use.
    ///
    /// - Throws: when the private key is not an RSA PEM key, or the token endpoint is not https.
    func source(for account: FCMSettings.ServiceAccount, caFile: String?, loops: HTTP2EventLoops) throws -> OAuthTokenSource {
        let accountKey = AccountKey(clientEmail: account.clientEmail, tokenURI: account.tokenURI, caFile: caFile,
                                    digest: SHA256.hash(Array(account.privateKey.utf8)))
        if let existing = sources.withLock({ $0[accountKey] }) { return existing }
        let url = URL(string: account.tokenURI)
        let tls = try HTTP2ClientTLS(TLSConfiguration(trustRoots: caFile.map { .caFile($0) } ?? .system,
                                                      serverName: url?.host ?? ""))
        let made = try OAuthTokenSource(account: account, key: try RS256Key(pem: account.privateKey), tls: tls, loops: loops)
        return sources.withLock { sources in
            if let existing = sources[accountKey] { return existing }
            sources[accountKey] = made
            return made
        }
    }

    /// Tokens fetched by every source.
    public var fetched: Int { sources.withLock { $0.values.reduce(0) { $0 + $1.fetched } } }

    func closeAll() async {
        for source in sources.withLock({ Array($0.values) }) { await source.close() }
    }
}
