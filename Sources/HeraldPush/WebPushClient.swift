import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Synchronization

/// Sends Web Push messages for one app (RFC 8030): each payload encrypted to its subscription
/// (RFC 8291, `aes128gcm`), signed for with the app's VAPID key (RFC 8292), over the pooled
/// connections of the subscription's push service.
///
/// Answers, as RFC 8030 and the services give them: 201 delivered; 404 and 410 the subscription is
/// gone; 413 too large; 429 wait out `Retry-After` (that origin only), then try again; 5xx try
/// again with backoff; anything else refused as it is.
public final class WebPushClient: Sendable {
    public let appID: String
    public let settings: WebPushSettings
    private let key: ES256Key
    private let publicKey: String
    private let pools: WebPushPools
    private let attempts: PushAttempts
    /// One VAPID token per origin, reused until an hour before it expires.
    private let vapidTokens = Mutex<[String: VAPIDToken]>([:])
    private let originHolds = Mutex<[String: ContinuousClock.Instant]>([:])
    private let now: @Sendable () -> Date

    /// How long a VAPID token is good for (RFC 8292 allows at most 24 hours).
    static let vapidLifetime: TimeInterval = 12 * 3600
    static let vapidRenewalMargin: TimeInterval = 3600

    /// - Throws: `HeraldError` `invalidWebPushSettings` when the VAPID key does not load.
    public init(appID: String, settings: WebPushSettings, pools: WebPushPools, retry: RetryPolicy = RetryPolicy(),
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        guard let pem = settings.vapidPrivateKey, let key = try? ES256Key(pem: pem), key.isPrivate else {
            throw HeraldError.invalid(.invalidWebPushSettings, "the app has no usable VAPID private key")
        }
        self.appID = appID
        self.settings = settings
        self.key = key
        publicKey = Base64URL.encode(try key.publicKeyPoint)
        self.pools = pools
        attempts = PushAttempts(retry: retry)
        self.now = now
    }

    /// Sends messages, retrying what is safe to retry, never waiting past `timeout`. One outcome
    /// per message, in order; the outcome's `token` is the subscription's endpoint.
    public func send(_ messages: [WebPushMessage], timeout: Duration) async -> [PushOutcome] {
        let origins = messages.map(\.subscription.origin)
        // A push service that answered 429 holds every message to its origin for Retry-After.
        let holds = { (pending: [PushAttempts.Pending]) -> [Int: ContinuousClock.Instant] in
            let held = self.originHolds.withLock { holds in holds.filter { $0.value > .now } }
            guard !held.isEmpty else { return [:] }
            var byIndex: [Int: ContinuousClock.Instant] = [:]
            for push in pending { if let until = held[origins[push.index]] { byIndex[push.index] = until } }
            return byIndex
        }
        return await attempts.run(addresses: messages.map(\.subscription.endpoint), timeout: timeout, holds: holds) { due, limit in
            // Each push service has its own connections and its own 429s, and is sent to at
            // once: a slow one does not hold back the others. One task per origin, not per push.
            let byOrigin = Dictionary(grouping: due.indices, by: { origins[due[$0].index] })
            var verdicts = [PushAttempts.Verdict?](repeating: nil, count: due.count)
            await withTaskGroup(of: [(position: Int, verdict: PushAttempts.Verdict)].self) { group in
                for (origin, positions) in byOrigin {
                    let pending = positions.map { due[$0] }
                    group.addTask {
                        zip(positions, await self.round(pending, of: messages, origin: origin, limit: limit)).map { ($0, $1) }
                    }
                }
                for await part in group { for (position, verdict) in part { verdicts[position] = verdict } }
            }
            return verdicts.map { $0! }
        }
    }

    /// One attempt for the messages to one origin: encrypted, sent over its pool, judged.
    private func round(_ due: [PushAttempts.Pending], of messages: [WebPushMessage], origin: String,
                       limit: Duration) async -> [PushAttempts.Verdict] {
        var verdicts = [PushAttempts.Verdict?](repeating: nil, count: due.count)
        var requests: [HTTP2Request] = []
        var sent: [Int] = []
        for (position, pending) in due.enumerated() {
            let message = messages[pending.index]
            do {
                requests.append(try request(for: message, origin: origin))
                sent.append(position)
            } catch {
                verdicts[position] = .done(PushOutcome(token: message.subscription.endpoint, status: 422,
                                                       reason: ((error as? HeraldError)?.reason ?? .invalidWebPushKeys).rawValue,
                                                       attempts: pending.attempts + 1))
            }
        }
        guard !requests.isEmpty else { return verdicts.map { $0! } }
        let pool: PushConnectionPool
        do {
            pool = try pools.pool(for: origin, caFile: settings.caFile)
        } catch {
            for position in sent {
                verdicts[position] = .done(PushOutcome(token: messages[due[position].index].subscription.endpoint, status: 422,
                                                       reason: "invalidWebPushSettings", attempts: due[position].attempts + 1))
            }
            return verdicts.map { $0! }
        }
        let answers = await pool.send(requests, avoiding: Set(sent.compactMap { due[$0].avoid }), limit: limit)
        for (position, answer) in zip(sent, answers) {
            let pending = due[position]
            let address = messages[pending.index].subscription.endpoint
            switch answer.result {
            case .failure(let error):
                verdicts[position] = attempts.verdict(on: error, connection: answer.connection, pending: pending, address: address)
            case .success(let response):
                let outcome = Self.outcome(of: response, endpoint: address, attempts: pending.attempts + 1)
                verdicts[position] = attempts.verdict(onWait: response, outcome: outcome, pending: pending, rateLimited: { until in
                    originHolds.withLock { holds in holds[origin] = max(holds[origin] ?? until, until) }
                }) ?? .done(outcome)
            }
        }
        return verdicts.map { $0! }
    }

    /// The encrypted request for one message, with the origin's VAPID authorization.
    func request(for message: WebPushMessage, origin: String) throws -> HTTP2Request {
        guard let url = URL(string: message.subscription.endpoint), let host = url.host,
              let p256dh = WebPushSubscription.decodeBase64URL(message.subscription.keys.p256dh),
              let auth = WebPushSubscription.decodeBase64URL(message.subscription.keys.auth)
        else { throw HeraldError.invalid(.invalidWebPushKeys, "the subscription's endpoint or keys do not decode") }
        let body = try WebPushEncryption.encrypt(plaintext: message.plaintext, subscriberPublicKey: p256dh, authSecret: auth)
        var headers: [HTTP2Header] = [
            ("authorization", try vapidAuthorization(for: origin)), ("content-encoding", "aes128gcm"),
            ("content-type", "application/octet-stream"), ("ttl", String(message.timeToLive)), ("urgency", message.urgency),
        ]
        if let collapseID = message.collapseID { headers.append(("topic", Self.topic(for: collapseID))) }
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        return HTTP2Request(method: "POST", path: path, authority: authority, headers: headers, body: body)
    }

    /// `vapid t=…, k=…` for `origin`, signed once and reused until near its expiry.
    func vapidAuthorization(for origin: String) throws -> String {
        let now = self.now()
        if let token = vapidTokens.withLock({ $0[origin] }), token.expiresAt.timeIntervalSince(now) > Self.vapidRenewalMargin {
            return token.authorizationHeader
        }
        let token = try VAPIDToken.sign(audience: origin, subject: settings.subject,
                                        expiresAt: now.addingTimeInterval(Self.vapidLifetime), key: key)
        vapidTokens.withLock { $0[origin] = token }
        return token.authorizationHeader
    }

    /// A collapse id as a `Topic`: at most 32 base64url characters, so a longer one is hashed.
    public static func topic(for collapseID: String) -> String {
        let alphabet = collapseID.utf8.allSatisfy { b in
            (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 95
        }
        if alphabet, !collapseID.isEmpty, collapseID.utf8.count <= 32 { return collapseID }
        return String(Base64URL.encode(SHA256.hash(Array(collapseID.utf8))).prefix(32))
    }

    static func outcome(of response: HTTP2Response, endpoint: String, attempts: Int) -> PushOutcome {
        let location = response.header("location")
        switch response.status {
        case 200..<300:
            return PushOutcome(token: endpoint, status: response.status, apnsID: location, attempts: attempts)
        case 404, 410:
            return PushOutcome(token: endpoint, status: response.status, reason: WebPushReason.subscriptionGone, attempts: attempts)
        case 413:
            return PushOutcome(token: endpoint, status: 413, reason: "payloadTooLarge", attempts: attempts)
        case 429:
            return PushOutcome(token: endpoint, status: 429, reason: WebPushReason.tooManyRequests, attempts: attempts)
        case 401, 403:
            return PushOutcome(token: endpoint, status: response.status, reason: WebPushReason.vapidRefused, attempts: attempts,
                               detail: String(decoding: response.body.prefix(200), as: UTF8.self))
        default:
            return PushOutcome(token: endpoint, status: response.status, reason: "HTTP\(response.status)", attempts: attempts,
                               detail: String(decoding: response.body.prefix(200), as: UTF8.self))
        }
    }

    /// The VAPID public key pages subscribe with.
    public var vapidPublicKey: String { publicKey }
}

/// Herald's words for Web Push answers.
public enum WebPushReason {
    /// 404 or 410: the subscription expired or was unsubscribed.
    public static let subscriptionGone = "subscriptionGone"
    /// 401 or 403: the push service refused the VAPID authorization.
    public static let vapidRefused = "vapidRefused"
    public static let tooManyRequests = "tooManyRequests"
}

/// Connections to the push services, one small pool per origin, shared by every app: endpoints
/// live on a handful of origins. Bounded: past `maximumOrigins`, and after `idleTimeout` unused, a
/// pool is closed.
public final class WebPushPools: Sendable {
    private struct Key: Hashable {
        var origin: String
        var caFile: String?
    }

    private let pools = Mutex<[Key: (pool: PushConnectionPool, lastUsed: ContinuousClock.Instant)]>([:])
    private let loops: HTTP2EventLoops
    private let connectionsPerOrigin: Int
    private let maximumOrigins: Int
    private let idleTimeout: Duration

    public init(loops: HTTP2EventLoops, connectionsPerOrigin: Int = 2, maximumOrigins: Int = 32, idleTimeout: Duration = .seconds(300)) {
        self.loops = loops
        self.connectionsPerOrigin = connectionsPerOrigin
        self.maximumOrigins = maximumOrigins
        self.idleTimeout = idleTimeout
    }

    /// The pool for `origin`, opened on first use; idle and surplus pools are closed on the way.
    func pool(for origin: String, caFile: String?) throws -> PushConnectionPool {
        let key = Key(origin: origin, caFile: caFile)
        let now = ContinuousClock.now
        var retired: [PushConnectionPool] = []
        defer {
            if !retired.isEmpty {
                let closing = retired
                Task { for pool in closing { await pool.closeAll() } }
            }
        }
        if let pool = pools.withLock({ pools -> PushConnectionPool? in
            guard let entry = pools[key] else { return nil }
            pools[key]?.lastUsed = now
            return entry.pool
        }) { return pool }
        guard let url = URL(string: origin), let host = url.host else {
            throw HeraldError.invalid(.invalidWebPushEndpoint, "\(origin) is not an https origin")
        }
        let tls = try HTTP2ClientTLS(TLSConfiguration(trustRoots: caFile.map { .caFile($0) } ?? .system, serverName: host))
        let made = PushConnectionPool(host: host, port: url.port ?? 443, tls: tls, loops: loops, size: connectionsPerOrigin)
        return pools.withLock { pools in
            for (other, entry) in pools where now - entry.lastUsed > idleTimeout {
                retired.append(entry.pool)
                pools[other] = nil
            }
            if let existing = pools[key] { return existing.pool }
            if pools.count >= maximumOrigins, let oldest = pools.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                retired.append(oldest.value.pool)
                pools[oldest.key] = nil
            }
            pools[key] = (made, now)
            return made
        }
    }

    public func closeAll() async {
        let all = pools.withLock { pools in
            defer { pools.removeAll() }
            return pools.values.map(\.pool)
        }
        for pool in all { await pool.closeAll() }
    }
}
