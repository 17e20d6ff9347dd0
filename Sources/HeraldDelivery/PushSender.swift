import Foundation
import HeraldCore
import HeraldPush

/// Where a push sent now finds the devices and broadcast channels it names.
public protocol PushAudiences: Sendable {
    /// The app's stored device `id` (a channel's audience included), nil when there is none.
    func device(appID: String, id: String) async throws -> Device?
    /// The audience of the app's broadcast channel `name`.
    ///
    /// - Throws: `appNotFound`, `channelNotFound`.
    func existingChannel(app: String, name: String) async throws -> Device
}

/// A push now: resolves its targets (tokens, or devices' addresses) and sends, one result row per
/// target. Shared by `POST /v1/push` and signed inbound hooks. A device goes through its
/// platform's service (``PlatformPush``): APNs for ios, FCM for android, Web Push for web.
public struct PushSender: Sendable {
    private let audiences: any PushAudiences
    private let gateway: PushGateway

    public init(audiences: any PushAudiences, gateway: PushGateway) {
        self.audiences = audiences
        self.gateway = gateway
    }

    /// One row of a push answer.
    public struct Result: Encodable, Sendable {
        public var notification: Int
        public var token: String?
        public var device: String?
        /// A broadcast's channel, by the app's name for it.
        public var channel: String?
        public var status: Int
        public var apnsId: String?
        public var reason: String?
        public var timestamp: Int64?

        public init(notification: Int, token: String? = nil, device: String? = nil, channel: String? = nil, status: Int,
                    apnsId: String? = nil, reason: String? = nil, timestamp: Int64? = nil) {
            self.notification = notification
            self.token = token
            self.device = device
            self.channel = channel
            self.status = status
            self.apnsId = apnsId
            self.reason = reason
            self.timestamp = timestamp
        }
    }

    /// Sends to every target; `make` builds the push for one token (and may refuse it). It runs
    /// until one push is built; the other targets get that push readdressed, so the payload is
    /// checked and encoded once, not once per token.
    ///
    /// - Parameters:
    ///   - sharedID: every target's push carries the same `apns-id` (the caller gave one);
    ///     otherwise each gets its own.
    ///   - channel: the same push for android and web devices, or why it has no equivalent there.
    ///   - liveActivity: for a Live Activity push, which decides each device's token: its
    ///     push-to-start token for a start, the activity's token for an update or end.
    public func send(app: App, type: APNsPushType, tokens: [String], devices: [String], index: Int, sharedID: Bool = false,
              channel: Swift.Result<ChannelPush, HeraldError>, liveActivity: LiveActivity? = nil,
              make: (String) throws(HeraldError) -> APNsPush) async -> [Result] {
        var targets: [(token: String, device: String?)] = tokens.map { ($0, nil) }
        var results: [Result] = []
        var others: [Device] = []
        for deviceID in devices {
            guard BroadcastChannel.name(audienceID: deviceID) == nil,
                  let device = try? await audiences.device(appID: app.id, id: deviceID) else {
                results.append(Result(notification: index, device: deviceID, status: 404, reason: Reason.deviceNotFound.rawValue))
                continue
            }
            guard device.platform == .ios else {
                others.append(device)
                continue
            }
            if let liveActivity {
                do throws(HeraldError) {
                    try liveActivity.checkReachable(on: device, push: app.push)
                } catch {
                    results.append(Result(notification: index, device: deviceID, status: 422, reason: error.reason.rawValue))
                    continue
                }
            }
            let address = liveActivity.map { device.address(for: $0) } ?? (type.usesVoIPToken ? device.voipToken : device.token)
            guard let token = address else {
                let missing: Reason? = liveActivity.map { $0.event == .start ? .noPushToStartToken : .unknownActivity }
                results.append(Result(notification: index, device: deviceID, status: 422,
                                      reason: (missing ?? (type.usesVoIPToken ? .noVoipToken : .noDeviceToken)).rawValue))
                continue
            }
            targets.append((token, deviceID))
        }
        var pushes: [APNsPush] = []
        var sent: [String?] = []
        var template: APNsPush?
        for target in targets {
            do {
                let push: APNsPush
                if let template {
                    push = try template.addressed(to: target.token, keepingID: sharedID)
                } else {
                    push = try make(target.token)
                    template = push
                }
                pushes.append(push)
                sent.append(target.device)
            } catch {
                results.append(Result(notification: index, token: target.token, device: target.device, status: 422,
                                      reason: error.reason.rawValue))
            }
        }
        results += await sendOnOtherPlatforms(others, app: app, index: index, channel: channel)
        guard !pushes.isEmpty else { return results }
        let outcomes = await gateway.send(pushes, app: app)
        for (device, outcome) in zip(sent, outcomes) { results.append(Result(outcome, notification: index, device: device)) }
        return results
    }

    /// A Live Activity push now, to raw tokens, to devices (each one's push-to-start token for a
    /// start, its activity's token for an update or end), or as a broadcast on a channel; its
    /// `aps.timestamp` is this moment. Shared by `POST /v1/push` and hooks.
    public func sendLiveActivity(_ unchecked: LiveActivity, app: App, to target: LiveActivityTarget, options: LiveActivitySendOptions,
                          index: Int) async -> [Result] {
        func refusal(_ error: HeraldError, status: Int = 422) -> [Result] {
            [Result(notification: index, channel: target.channel, status: status, reason: error.reason.rawValue)]
        }
        guard [target.tokens as Any?, target.devices, target.channel].compactMap({ $0 }).count == 1 else {
            return refusal(.invalid(.missingTokens, "give tokens, devices or channel (one of them)"))
        }
        let timestamp = Int(Date().timeIntervalSince1970)
        guard let channelName = target.channel else {
            let liveActivity: LiveActivity
            do throws(HeraldError) {
                liveActivity = try unchecked.validated(for: .device)
                if let push = app.push, !push.usesTokenAuth {
                    throw .invalid(.liveActivityNeedsTokenAuth, "APNs takes Live Activity pushes with token auth only")
                }
            } catch {
                return refusal(error)
            }
            let unsupported = HeraldError.invalid(.liveActivityNotForPlatform, "Live Activities run on iOS")
            return await send(app: app, type: .liveactivity, tokens: target.tokens ?? [], devices: target.devices ?? [],
                              index: index, sharedID: options.id != nil, channel: .failure(unsupported),
                              liveActivity: liveActivity) { token throws(HeraldError) in
                try APNsPush(token: token, type: .liveactivity, bundleID: app.id, priority: options.priority,
                             expiration: options.expiration, id: options.id, collapseID: options.collapseID,
                             aps: liveActivity.aps(timestamp: timestamp), custom: options.data)
            }
        }
        let push: APNsPush
        do {
            let audience = try await audiences.existingChannel(app: app.id, name: channelName)
            let liveActivity = try unchecked.validated(for: .channel)
            try liveActivity.checkReachable(on: audience, push: app.push)
            guard let channel = audience.broadcastChannel else { return refusal(.notFound(.channelNotFound, "no channel")) }
            push = try APNsPush(channelID: channel.apnsChannelID, bundleID: app.id, priority: options.priority,
                                expiration: options.expiration, id: options.id, collapseID: options.collapseID,
                                aps: liveActivity.aps(timestamp: timestamp), custom: options.data)
        } catch let error as HeraldError {
            return refusal(error, status: error.kind == .notFound ? 404 : 422)
        } catch {
            return refusal(.invalid(.storeUnavailable, "the store did not answer"), status: 503)
        }
        let outcome = await gateway.send([push], app: app)[0]
        return [Result(notification: index, channel: channelName, status: outcome.status, apnsId: outcome.apnsID,
                       reason: outcome.reason, timestamp: outcome.timestamp)]
    }

    /// Android devices through FCM, web devices through Web Push: the message is built and checked
    /// once per platform and readdressed to each device.
    private func sendOnOtherPlatforms(_ devices: [Device], app: App, index: Int,
                                      channel: Swift.Result<ChannelPush, HeraldError>) async -> [Result] {
        guard !devices.isEmpty else { return [] }
        let push: ChannelPush
        switch channel {
        case .success(let built): push = built
        case .failure(let error):
            return devices.map { Result(notification: index, device: $0.id, status: 422, reason: error.reason.rawValue) }
        }
        var results: [Result] = []
        let now = Date()
        var pushes: [(device: String, push: PlatformPush)] = []
        var first: [Platform: PlatformPush] = [:]
        for device in devices {
            do throws(HeraldError) {
                let built: PlatformPush?
                if let template = first[device.platform] {
                    built = try template.readdressed(to: device)
                } else {
                    built = try PlatformPush.channel(push, to: device, now: now)
                }
                guard let built else {
                    let missing = device.platform.missingAddress
                    throw .invalid(missing.reason, "device \(device.id) has no \(missing.field)")
                }
                if first[device.platform] == nil { first[device.platform] = built }
                pushes.append((device.id, built))
            } catch {
                results.append(Result(notification: index, device: device.id, status: 422, reason: error.reason.rawValue))
            }
        }
        for (device, outcome) in zip(pushes.map(\.device), await gateway.send(pushes.map(\.push), app: app)) {
            results.append(Result(outcome, notification: index, device: device))
        }
        return results
    }
}

/// Where a Live Activity push goes now: exactly one of raw tokens, devices or a channel's name.
public struct LiveActivityTarget: Sendable {
    public var tokens: [String]?
    public var devices: [String]?
    public var channel: String?

    public init(tokens: [String]?, devices: [String]?, channel: String?) {
        self.tokens = tokens
        self.devices = devices
        self.channel = channel
    }
}

/// The headers a push's sender may choose, and the custom keys beside `aps`.
public struct LiveActivitySendOptions: Sendable {
    public var id: String?
    public var collapseID: String?
    public var priority: Int?
    public var expiration: Int?
    public var data: [String: JSONValue]

    public init(id: String? = nil, collapseID: String? = nil, priority: Int? = nil, expiration: Int? = nil,
                data: [String: JSONValue] = [:]) {
        self.id = id
        self.collapseID = collapseID
        self.priority = priority
        self.expiration = expiration
        self.data = data
    }
}

extension PushSender.Result {
    init(_ outcome: PushOutcome, notification: Int, device: String?) {
        self.init(notification: notification, token: outcome.token, device: device, status: outcome.status,
                  apnsId: outcome.apnsID, reason: outcome.reason, timestamp: outcome.timestamp)
    }
}
