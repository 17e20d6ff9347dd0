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
    let timeout: Duration

    public init(policy: PushCredentialPolicy, timeout: Duration = .seconds(10)) {
        self.policy = policy
        self.timeout = timeout
    }

    /// Runs every check in order; a failed check skips those that depend on it.
    public func examine(_ app: App) async -> [Check] {
        var checks: [Check] = []
        func add(_ name: String, _ outcome: Check.Outcome, _ detail: String) {
            checks.append(Check(name: name, outcome: outcome, detail: detail))
        }
        func skipRest(after index: Int) {
            for name in Self.names.dropFirst(index + 1) { add(name, .skipped, "skipped: an earlier check failed") }
        }
        guard let settings = app.push else {
            add("settings", .failed, "app '\(app.id)' has no push settings: PUT /v1/apps/\(app.id) with a push object")
            skipRest(after: 0)
            return checks
        }
        do {
            try policy.check(settings)
            let endpoint = try settings.endpoint()
            add("settings", .passed, "environment \(settings.environment) is \(endpoint.host):\(endpoint.port)")
        } catch {
            add("settings", .failed, error.message)
            skipRest(after: 0)
            return checks
        }
        let client: APNsClient
        do {
            client = try APNsClient(appID: app.id, settings: settings, poolSize: 1, retry: RetryPolicy(maximumAttempts: 1))
        } catch let error as HeraldError {
            add("credentials", .failed, error.message)
            skipRest(after: 1)
            return checks
        } catch {
            add("credentials", .failed, "the credentials do not load: \(error)")
            skipRest(after: 1)
            return checks
        }
        defer { Task { await client.close() } }
        switch settings.auth {
        case .token(let teamID, let keyID, _):
            add("credentials", .passed, "token key \(keyID) of team \(teamID) loads (EC P-256)")
            do {
                let token = try client.providerTokens?.token(now: Date())
                add("providerToken", .passed, "a provider token (ES256 JWT) signs; issued at \(token?.issuedAt ?? 0)")
            } catch {
                add("providerToken", .failed, "the key does not sign a provider token: \(error)")
                skipRest(after: 2)
                return checks
            }
        case .certificate:
            add("credentials", .passed, "the client certificate and its private key load")
            add("providerToken", .skipped, "certificate authentication: no provider token is used")
        }
        let endpoint = (try? settings.endpoint()) ?? (host: "", port: 0)
        guard Self.resolves(endpoint.host, port: endpoint.port) else {
            add("dns", .failed, "\(endpoint.host) does not resolve: check the environment and this machine's DNS")
            skipRest(after: 3)
            return checks
        }
        add("dns", .passed, "\(endpoint.host) resolves")
        let probe: APNsPush
        do {
            probe = try APNsPush(token: Self.probeToken, type: .background, bundleID: app.id, aps: APS(contentAvailable: 1))
        } catch {
            add("apns", .failed, "cannot build a push for topic \(app.id): \(error.message)")
            return checks
        }
        let outcome = await client.send(probe, timeout: timeout)
        let (passed, detail) = Self.explain(outcome, topic: probe.topic)
        add("apns", passed ? .passed : .failed, detail)
        return checks
    }

    static let names = ["settings", "credentials", "providerToken", "dns", "apns"]

    /// What the probe's answer says about the settings, in plain words.
    static func explain(_ outcome: PushOutcome, topic: String) -> (passed: Bool, detail: String) {
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
            switch outcome.reason {
            case "tlsFailure": return (false, "the TLS handshake failed: check the CA file and that the host is an APNs endpoint")
            case "alpnNotNegotiated": return (false, "the server does not speak HTTP/2 (no h2 in ALPN): not an APNs endpoint")
            case "connectFailed": return (false, "cannot connect: check the host, the port and any firewall in between")
            case "timeout": return (false, "no answer in time: the endpoint or the network is too slow or drops the traffic")
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
