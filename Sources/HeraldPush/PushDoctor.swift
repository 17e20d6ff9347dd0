import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2

/// Checks an app's push settings end to end, the way a push would use them, and says what is
/// wrong in plain words: the settings are allowed, the credentials load, the provider token
/// signs, the environment's host resolves, and APNs answers over HTTP/2 with TLS.
///
/// The last check sends one `background` push to a made-up device token: APNs judges the
/// credentials and topic before the token, so `BadDeviceToken` means everything else is right.
/// No device receives it and nothing is stored.
public struct PushDoctor: Sendable {
    /// One check and how it went.
    public struct Check: Sendable, Hashable, Codable {
        public enum Outcome: String, Sendable, Hashable, Codable {
            case passed, failed, skipped
        }
        public var name: String
        public var outcome: Outcome
        public var detail: String
    }

    /// The device token the probe push goes to: well formed, and nobody's.
    static let probeToken = String(repeating: "0", count: 64)

    let policy: PushCredentialPolicy
    /// The gateway's: a key's provider token is shared, since APNs refuses a key renewed more
    /// often than every 20 minutes (a doctor's run must not sign one of its own).
    let tokenSources: ProviderTokenSources
    /// The gateway's loops: file reads, DNS and the connection run there, off Swift's pool.
    let loops: HTTP2EventLoops
    let timeout: Duration

    /// The gateway's FCM access tokens, shared for the same reason.
    let accessTokens: OAuthTokenSources

    public init(policy: PushCredentialPolicy, tokenSources: ProviderTokenSources, loops: HTTP2EventLoops,
                accessTokens: OAuthTokenSources = OAuthTokenSources(), timeout: Duration = .seconds(10)) {
        self.accessTokens = accessTokens
        self.policy = policy
        self.tokenSources = tokenSources
        self.loops = loops
        self.timeout = timeout
    }

    /// Runs every check in order, for each service the app has settings for (APNs, FCM, Web
    /// Push); a failed check skips those that depend on it.
    public func examine(_ app: App) async -> [Check] {
        var list = CheckList()
        if app.push != nil || (app.fcm == nil && app.webPush == nil) { await examine(app, into: &list) }
        var checks = list.checks
        if let fcm = app.fcm { checks += await examineFCM(app, settings: fcm) }
        if let webPush = app.webPush { checks += examineWebPush(webPush) }
        return checks
    }

    /// The checks so far; a failure marks the ones after it skipped.
    private struct CheckList {
        var checks: [Check] = []

        mutating func add(_ name: String, _ outcome: Check.Outcome, _ detail: String) {
            checks.append(Check(name: name, outcome: outcome, detail: detail))
        }

        mutating func fail(_ name: String, _ detail: String) {
            add(name, .failed, detail)
            for later in PushDoctor.names.drop(while: { $0 != name }).dropFirst() {
                add(later, .skipped, "skipped: an earlier check failed")
            }
        }
    }

    /// The checks that need no connection, then ``probe(_:settings:endpoint:with:into:)``.
    private func examine(_ app: App, into list: inout CheckList) async {
        guard let settings = app.push else {
            list.fail("settings", "app '\(app.id)' has no push settings: PUT /v1/apps/\(app.id) with a push, fcm or webPush object")
            return
        }
        let endpoint: (host: String, port: Int)
        do {
            try policy.check(settings)
            endpoint = try settings.endpoint()
            list.add("settings", .passed, "environment \(settings.environment) is \(endpoint.host):\(endpoint.port)")
        } catch {
            list.fail("settings", error.message)
            return
        }
        let client: APNsClient
        do {
            let (tokenSources, loops) = (self.tokenSources, self.loops)
            client = try await loops.run {
                try APNsClient(appID: app.id, settings: settings, poolSize: 1, retry: RetryPolicy(maximumAttempts: 1),
                               tokenSources: tokenSources, loops: loops)
            }
        } catch let error as HeraldError {
            list.fail("credentials", error.message)
            return
        } catch {
            list.fail("credentials", "the credentials do not load: \(error)")
            return
        }
        await probe(app, settings: settings, endpoint: endpoint, with: client, into: &list)
        await client.close()
    }

    /// The checks that use the loaded client: provider token, DNS, the probe push.
    private func probe(_ app: App, settings: PushSettings, endpoint: (host: String, port: Int), with client: APNsClient,
                       into list: inout CheckList) async {
        switch settings.auth {
        case .token(let teamID, let keyID, _):
            list.add("credentials", .passed, "token key \(keyID) of team \(teamID) loads (EC P-256)")
            do {
                let token = try client.providerTokens?.token(now: Date())
                list.add("providerToken", .passed, "a provider token (ES256 JWT) signs; issued at \(token?.issuedAt ?? 0)")
            } catch {
                list.fail("providerToken", "the key does not sign a provider token: \(error)")
                return
            }
        case .certificate:
            list.add("credentials", .passed, "the client certificate and its private key load")
            list.add("providerToken", .skipped, "certificate authentication: no provider token is used")
        }
        guard (try? await loops.run({ Self.resolves(endpoint.host, port: endpoint.port) })) == true else {
            list.fail("dns", "\(endpoint.host) does not resolve: check the environment and this machine's DNS")
            return
        }
        list.add("dns", .passed, "\(endpoint.host) resolves")
        let probe: APNsPush
        do {
            probe = try APNsPush(token: Self.probeToken, type: .background, bundleID: app.id, aps: APS(contentAvailable: 1))
        } catch {
            list.fail("apns", "cannot build a push for topic \(app.id): \(error.message)")
            return
        }
        let outcome = await client.send(probe, timeout: timeout)
        let (passed, detail) = Self.explain(outcome, topic: probe.topic)
        list.add("apns", passed ? .passed : .failed, detail)
    }

    static let names = ["settings", "credentials", "providerToken", "dns", "apns"]

    /// What the probe's answer says about the settings, in plain words.
    public static func explain(_ outcome: PushOutcome, topic: String) -> (passed: Bool, detail: String) {
        let answered = "APNs answered over HTTP/2 with TLS"
        switch outcome.apnsReason {
        case nil where outcome.status == 200:
            return (true, "\(answered) and accepted a probe push (this environment takes any token)")
        case .badDeviceToken?:
            return (true, "\(answered) and accepted the credentials and topic \(topic) (the probe's made-up token was refused, as it should be)")
        case .invalidProviderToken?, .missingProviderToken?, .unrelatedKeyIdInToken?:
            return (false, "\(answered) but refused the provider token (\(outcome.reason ?? "")): check the key id, the team id and that the .p8 key is the one Apple issued for them")
        case .badEnvironmentKeyIdInToken?:
            return (false, "\(answered) but this key is not valid for this environment (\(outcome.reason ?? "")): use a key enabled for it, or the other environment")
        case .expiredProviderToken?:
            return (false, "\(answered) but called the provider token expired: check this machine's clock")
        case .badCertificate?, .badCertificateEnvironment?:
            return (false, "\(answered) but refused the client certificate (\(outcome.reason ?? "")): check it is an APNs certificate for this environment")
        case .topicDisallowed?, .badTopic?, .deviceTokenNotForTopic?, .missingTopic?:
            return (false, "\(answered) but refused topic \(topic) (\(outcome.reason ?? "")): the app id must be the bundle id the credentials may push to")
        case .tooManyProviderTokenUpdates?:
            return (false, "\(answered) but says the provider token is renewed too often: is another sender using the same key?")
        case let reason?:
            return (false, "\(answered) with HTTP \(outcome.status) \(reason.rawValue)")
        case nil:
            switch outcome.reason.flatMap(HeraldPushReason.init(rawValue:)) {
            case .tlsFailure?: return (false, "the TLS handshake failed: check the CA file and that the host is an APNs endpoint")
            case .alpnNotNegotiated?: return (false, "the server does not speak HTTP/2 (no h2 in ALPN): not an APNs endpoint")
            case .connectFailed?: return (false, "cannot connect: check the host, the port and any firewall in between")
            case .timeout?: return (false, "no answer in time: the endpoint or the network is too slow or drops the traffic")
            default: return (false, "the probe push failed: HTTP \(outcome.status) \(outcome.reason ?? "")")
            }
        }
    }

    private static func resolves(_ host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        defer { if let result { freeaddrinfo(result) } }
        return getaddrinfo(host, String(port), &hints, &result) == 0 && result != nil
    }
}
