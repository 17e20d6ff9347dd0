import Foundation
import HeraldCore
import HeraldCrypto
import HeraldHTTP2
import Logging
import Metrics

/// The push engine: per app, one ``APNsClient`` (iOS), one ``FCMClient`` (Android) and one
/// ``WebPushClient`` (web), and the rules around sending that hold for all three.
///
/// Addresses a service declared dead (an APNs or FCM token, a Web Push endpoint) are never sent to
/// again (until the device registers them anew), and each newly dead one is recorded with a
/// `token.invalid` feedback event.
public actor PushGateway {
    public struct Configuration: Sendable {
        /// The longest one push may take, retries included.
        public var timeout: Duration
        /// Connections per app and environment.
        public var connectionsPerApp: Int
        /// Pushes in flight at once for one call.
        public var concurrency: Int

        /// What push settings may name (files, custom hosts); checked before any client is made.
        public var credentialPolicy: PushCredentialPolicy

        public init(timeout: Duration = .seconds(30), connectionsPerApp: Int = 2, concurrency: Int = 2000,
                    credentialPolicy: PushCredentialPolicy = PushCredentialPolicy()) {
            self.timeout = timeout
            self.connectionsPerApp = connectionsPerApp
            self.concurrency = concurrency
            self.credentialPolicy = credentialPolicy
        }
    }

    private let ledger: any TokenLedger
    private let configuration: Configuration
    private let logger: Logger
    private var clients: [String: APNsClient] = [:]
    private var fcmClients: [String: FCMClient] = [:]
    private var webPushClients: [String: WebPushClient] = [:]
    /// One FCM access token per service account, whichever apps use it.
    private let accessTokens = OAuthTokenSources()
    /// Connections to the Web Push services, per origin, shared by every app.
    private let webPushPools: WebPushPools
    /// One provider token per signing key, whichever apps and settings use it.
    private let tokenSources = ProviderTokenSources()
    /// The event loops every app's connections share, one per core.
    private let loops = HTTP2EventLoops(name: "apns")
    private let tooFrequentTokens = Counter(label: "herald_provider_token_too_many_updates_total")
    private let metrics = PushMetrics()
    /// Pushes per minute by outcome over the last hour, per app, for the status page.
    public nonisolated let activity = PushActivity()

    public init(ledger: any TokenLedger, configuration: Configuration = Configuration(),
                logger: Logger = Logger(label: "herald.push")) {
        self.ledger = ledger
        self.configuration = configuration
        self.logger = logger
        webPushPools = WebPushPools(loops: loops, connectionsPerOrigin: configuration.connectionsPerApp)
    }

    /// The client for an app's current settings; a settings change replaces it.
    public func client(for app: App) async throws(HeraldError) -> APNsClient {
        guard let settings = app.push else {
            throw .invalid(.pushNotConfigured, "app '\(app.id)' has no push settings")
        }
        if let existing = clients[app.id], existing.settings == settings { return existing }
        // Checked on every load, not only when the settings are stored: a symlink may have moved.
        try configuration.credentialPolicy.check(settings)
        do {
            // Loading reads key and certificate files: on a loop thread, off the cooperative pool.
            let (poolSize, tokenSources, loops, metrics, appID) = (configuration.connectionsPerApp, self.tokenSources, self.loops,
                                                                   self.metrics, app.id)
            let events = APNsConnectionEvents(connected: { metrics.connected(app: appID, succeeded: $0) },
                                              receivedGoAway: { metrics.receivedGoAway(app: appID) })
            let client = try await loops.run {
                try APNsClient(appID: app.id, settings: settings, poolSize: poolSize, tokenSources: tokenSources, loops: loops,
                               events: events)
            }
            // Another call may have loaded the same settings meanwhile: keep one client.
            if let existing = clients[app.id], existing.settings == settings {
                await client.close()
                return existing
            }
            if let old = clients.updateValue(client, forKey: app.id) { await old.close() }
            return client
        } catch let error as HeraldError {
            throw error
        } catch {
            throw .invalid(.invalidPushCredentials, "cannot load the push credentials of '\(app.id)'")
        }
    }

    /// Sends pushes for one app; one outcome per push, in order.
    ///
    /// Statuses are APNs' own when APNs answered; otherwise Herald's: 410 `tokenInvalidated` (not
    /// sent: the token is known dead), 422 for a push refused by the rules, 502/504 for transport
    /// failures and timeouts.
    public nonisolated func send(_ pushes: [APNsPush], app: App) async -> [PushOutcome] {
        let started = ContinuousClock.now
        let results = await sendUnrecorded(pushes, app: app)
        metrics.record(results, types: pushes.map { $0.channelID == nil ? $0.type.rawValue : "broadcast" }, platform: .ios, app: app.id, elapsed: .now - started)
        activity.record(results.reduce(into: [:]) { $0[$1.result, default: 0] += 1 }, app: app.id, platform: .ios)
        return results
    }

    /// Checks an app's push settings end to end under this gateway's credential policy.
    public nonisolated var doctor: PushDoctor {
        PushDoctor(policy: configuration.credentialPolicy, tokenSources: tokenSources, loops: loops, accessTokens: accessTokens)
    }

    /// Gauges read at scrape time: open connections per app, provider tokens signed.
    public func refreshMetrics() {
        metrics.refresh(openConnections: clients.mapValues(\.openConnections), signedTokens: tokenSources.signed)
    }

    private nonisolated func sendUnrecorded(_ pushes: [APNsPush], app: App) async -> [PushOutcome] {
        let client: APNsClient
        do {
            client = try await self.client(for: app)
        } catch {
            return pushes.map { PushOutcome(token: $0.token, status: 422, reason: error.reason.rawValue, attempts: 0) }
        }
        let timeout = configuration.timeout
        // Known-dead tokens are not sent: one ledger call for the whole batch.
        let dead = await ledger.invalid(appID: app.id, among: Set(pushes.map(\.token)))
        var outcomes = [PushOutcome?](repeating: nil, count: pushes.count)
        var live: [Int] = []
        for (index, push) in pushes.enumerated() {
            if dead.contains(push.token) {
                outcomes[index] = PushOutcome(token: push.token, status: 410, reason: HeraldPushReason.tokenInvalidated.rawValue,
                                              attempts: 0)
            } else {
                live.append(index)
            }
        }
        // Batches of `concurrency`, two in flight, so one batch's slowest push does not idle the
        // connections: one task per batch, never one per push.
        let chunkSize = max(1, configuration.concurrency / 2)
        let chunks = stride(from: 0, to: live.count, by: chunkSize).map {
            Array(live[$0..<min($0 + chunkSize, live.count)])
        }
        await withTaskGroup(of: ([Int], [PushOutcome]).self) { group in
            var next = 0
            func startNext() {
                guard next < chunks.count else { return }
                let chunk = chunks[next]
                next += 1
                group.addTask { (chunk, await client.send(chunk.map { pushes[$0] }, timeout: timeout)) }
            }
            startNext()
            startNext()
            for await (chunk, results) in group {
                for (index, outcome) in zip(chunk, results) { outcomes[index] = outcome }
                startNext()
            }
        }
        let results = outcomes.map { $0! }
        let tooFrequent = results.filter { $0.apnsReason == .tooManyProviderTokenUpdates }.count
        if tooFrequent > 0 {
            // The key's token was renewed too often for APNs (another sender on the same key?).
            tooFrequentTokens.increment(by: tooFrequent)
            logger.warning("APNs refused the provider token as updated too often (TooManyProviderTokenUpdates)",
                           metadata: ["app": "\(app.id)", "pushes": "\(tooFrequent)"])
        }
        let confirmed = client.environmentConfirmed
        for outcome in results where outcome.apnsReason?.invalidatesToken == true {
            guard outcome.apnsReason?.invalidatesToken(environmentConfirmed: confirmed) == true else {
                logger.notice("device token kept: BadDeviceToken before these push settings had any push accepted (did the environment just change?)",
                              metadata: ["app": "\(app.id)", "token": "\(DeviceRules.redacted(token: outcome.token))"])
                continue
            }
            let invalidated = await ledger.invalidate(InvalidToken(appID: app.id, token: outcome.token, reason: outcome.reason ?? "",
                                                                   apnsTimestamp: outcome.timestamp, invalidatedAt: Date()))
            logger.notice(invalidated ? "device token invalidated" : "device token kept: registered again after APNs' timestamp",
                          metadata: ["app": "\(app.id)", "token": "\(DeviceRules.redacted(token: outcome.token))",
                                     "reason": "\(outcome.reason ?? "")"])
        }
        return results
    }

    // MARK: FCM and Web Push

    /// The FCM client for an app's current settings; a settings change replaces it.
    public func fcmClient(for app: App) async throws(HeraldError) -> FCMClient {
        guard let settings = app.fcm else { throw .invalid(.fcmNotConfigured, "app '\(app.id)' has no fcm settings") }
        if let existing = fcmClients[app.id], existing.settings == settings { return existing }
        try configuration.credentialPolicy.check(files: settings.filePaths)
        do {
            let (poolSize, accessTokens, loops) = (configuration.connectionsPerApp, self.accessTokens, self.loops)
            let client = try await loops.run {
                try FCMClient(appID: app.id, settings: settings, poolSize: poolSize, tokenSources: accessTokens, loops: loops)
            }
            if let existing = fcmClients[app.id], existing.settings == settings {
                await client.close()
                return existing
            }
            if let old = fcmClients.updateValue(client, forKey: app.id) { await old.close() }
            return client
        } catch let error as HeraldError {
            throw error
        } catch {
            throw .invalid(.invalidFCMServiceAccount, "cannot load the fcm settings of '\(app.id)': \(error)")
        }
    }

    /// The Web Push client for an app's current settings.
    public func webPushClient(for app: App) throws(HeraldError) -> WebPushClient {
        guard let settings = app.webPush else { throw .invalid(.webPushNotConfigured, "app '\(app.id)' has no webPush settings") }
        if let existing = webPushClients[app.id], existing.settings == settings { return existing }
        try configuration.credentialPolicy.check(files: settings.caFile.map { [$0] } ?? [])
        do {
            let client = try WebPushClient(appID: app.id, settings: settings, pools: webPushPools)
            webPushClients[app.id] = client
            return client
        } catch let error as HeraldError {
            throw error
        } catch {
            throw .invalid(.invalidWebPushSettings, "cannot load the webPush settings of '\(app.id)'")
        }
    }

    /// Sends FCM messages for one app; one outcome per message, in order. Statuses are FCM's own
    /// when it answered; otherwise Herald's, as for APNs.
    public nonisolated func send(_ messages: [FCMMessage], app: App, validateOnly: Bool = false) async -> [PushOutcome] {
        await sendOnChannel(messages.map(\.token), platform: .android, types: messages.map(\.kind.rawValue), app: app) { (live: [Int]) async throws(HeraldError) -> [PushOutcome] in
            let client = try await self.fcmClient(for: app)
            return await client.send(live.map { messages[$0] }, timeout: self.configuration.timeout, validateOnly: validateOnly)
        }
    }

    /// Sends Web Push messages for one app; one outcome per message, its `token` the endpoint.
    public nonisolated func send(_ messages: [WebPushMessage], app: App) async -> [PushOutcome] {
        await sendOnChannel(messages.map(\.subscription.endpoint), platform: .web, types: messages.map(\.kind.rawValue),
                            app: app) { (live: [Int]) async throws(HeraldError) -> [PushOutcome] in
            let client = try await self.webPushClient(for: app)
            return await client.send(live.map { messages[$0] }, timeout: self.configuration.timeout)
        }
    }

    /// The rules every channel shares: known-dead addresses are not sent to, newly dead ones are
    /// recorded in the ledger, and the outcomes are counted by platform.
    private nonisolated func sendOnChannel(_ addresses: [String], platform: Platform, types: [String], app: App,
                                           send: ([Int]) async throws(HeraldError) -> [PushOutcome]) async -> [PushOutcome] {
        let started = ContinuousClock.now
        let dead = await ledger.invalid(appID: app.id, among: Set(addresses))
        var outcomes = [PushOutcome?](repeating: nil, count: addresses.count)
        var live: [Int] = []
        for (index, address) in addresses.enumerated() {
            if dead.contains(address) {
                outcomes[index] = PushOutcome(token: address, status: 410, reason: HeraldPushReason.tokenInvalidated.rawValue,
                                              attempts: 0)
            } else {
                live.append(index)
            }
        }
        if !live.isEmpty {
            do {
                for (index, outcome) in zip(live, try await send(live)) { outcomes[index] = outcome }
            } catch {
                for index in live { outcomes[index] = PushOutcome(token: addresses[index], status: 422, reason: error.reason.rawValue, attempts: 0) }
            }
        }
        let results = outcomes.map { $0! }
        for outcome in results where outcome.invalidatesAddress && outcome.attempts > 0 {
            let invalidated = await ledger.invalidate(InvalidToken(appID: app.id, token: outcome.token, reason: outcome.reason ?? "",
                                                                   apnsTimestamp: nil, invalidatedAt: Date()))
            logger.notice(invalidated ? "\(platform.rawValue) address invalidated" : "\(platform.rawValue) address kept: registered again",
                          metadata: ["app": "\(app.id)", "token": "\(DeviceRules.redacted(token: outcome.token))",
                                     "reason": "\(outcome.reason ?? "")"])
        }
        metrics.record(results, types: types, platform: platform, app: app.id, elapsed: .now - started)
        activity.record(results.reduce(into: [:]) { $0[$1.result, default: 0] += 1 }, app: app.id, platform: platform)
        return results
    }

    public func shutdown() async {
        for client in clients.values { await client.close() }
        clients.removeAll()
        for client in fcmClients.values { await client.close() }
        fcmClients.removeAll()
        await accessTokens.closeAll()
        await webPushPools.closeAll()
        await loops.shutdown()
    }
}
