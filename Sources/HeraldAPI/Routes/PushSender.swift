import Foundation
import HeraldCore
import HeraldPush

/// Resolves push targets (tokens, or devices' addresses) and sends, one result row per target.
/// Shared by `POST /v1/push` and signed inbound hooks. A device goes through its platform's
/// service: APNs for ios, FCM for android, Web Push for web.
struct PushSender {
    let services: APIServices
    let gateway: PushGateway

    /// One row of a push answer.
    struct Result: Encodable {
        var notification: Int
        var token: String?
        var device: String?
        var status: Int
        var apnsId: String?
        var reason: String?
        var timestamp: Int64?
    }

    /// Sends to every target; `make` builds the push for one token (and may refuse it). It runs
    /// until one push is built; the other targets get that push readdressed, so the payload is
    /// checked and encoded once, not once per token.
    ///
    /// - Parameters:
    ///   - sharedID: every target's push carries the same `apns-id` (the caller gave one);
    ///     otherwise each gets its own.
    ///   - channel: the same push for android and web devices, or why it has no equivalent there.
    func send(app: App, type: APNsPushType, tokens: [String], devices: [String], index: Int, sharedID: Bool = false,
              channel: Swift.Result<ChannelPush, HeraldError>,
              make: (String) throws(HeraldError) -> APNsPush) async -> [Result] {
        var targets: [(token: String, device: String?)] = tokens.map { ($0, nil) }
        var results: [Result] = []
        var others: [Device] = []
        for deviceID in devices {
            guard let device = try? await services.store.device(appID: app.id, id: deviceID) else {
                results.append(Result(notification: index, device: deviceID, status: 404, reason: "deviceNotFound"))
                continue
            }
            guard device.platform == .ios else {
                others.append(device)
                continue
            }
            guard let token = type.usesVoIPToken ? device.voipToken : device.token else {
                results.append(Result(notification: index, device: deviceID, status: 422,
                                      reason: type.usesVoIPToken ? "noVoipToken" : "noDeviceToken"))
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
                                      reason: error.reason))
            }
        }
        results += await sendOnOtherPlatforms(others, app: app, index: index, channel: channel)
        guard !pushes.isEmpty else { return results }
        let outcomes = await gateway.send(pushes, app: app)
        for (device, outcome) in zip(sent, outcomes) {
            results.append(Result(notification: index, token: outcome.token, device: device, status: outcome.status,
                                  apnsId: outcome.apnsID, reason: outcome.reason, timestamp: outcome.timestamp))
        }
        return results
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
            return devices.map { Result(notification: index, device: $0.id, status: 422, reason: error.reason) }
        }
        var results: [Result] = []
        let now = Date()
        var fcm: [(device: String, message: FCMMessage)] = []
        var web: [(device: String, message: WebPushMessage)] = []
        for device in devices {
            do throws(HeraldError) {
                switch device.platform {
                case .android:
                    guard let token = device.fcmToken else { throw .invalid("noFcmToken", "device \(device.id) has no fcmToken") }
                    if let first = fcm.first {
                        fcm.append((device.id, try first.message.addressed(to: token)))
                    } else {
                        fcm.append((device.id, try FCMMessage(token: token, push: push, now: now)))
                    }
                case .web:
                    guard let subscription = device.webPush else {
                        throw .invalid("noWebPushSubscription", "device \(device.id) has no webPush subscription")
                    }
                    if let first = web.first {
                        web.append((device.id, first.message.addressed(to: subscription)))
                    } else {
                        web.append((device.id, try WebPushMessage(subscription: subscription, push: push, now: now)))
                    }
                case .ios:
                    continue
                }
            } catch {
                results.append(Result(notification: index, device: device.id, status: 422, reason: error.reason))
            }
        }
        if !fcm.isEmpty {
            for (device, outcome) in zip(fcm.map(\.device), await gateway.send(fcm.map(\.message), app: app)) {
                results.append(Result(outcome, notification: index, device: device))
            }
        }
        if !web.isEmpty {
            for (device, outcome) in zip(web.map(\.device), await gateway.send(web.map(\.message), app: app)) {
                results.append(Result(outcome, notification: index, device: device))
            }
        }
        return results
    }
}

extension PushSender.Result {
    init(_ outcome: PushOutcome, notification: Int, device: String?) {
        self.init(notification: notification, token: outcome.token, device: device, status: outcome.status,
                  apnsId: outcome.apnsID, reason: outcome.reason, timestamp: outcome.timestamp)
    }
}
