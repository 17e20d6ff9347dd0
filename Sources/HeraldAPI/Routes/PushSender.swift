import Foundation
import HeraldCore
import HeraldPush

/// Resolves push targets (tokens, or devices' tokens) and sends, one result row per target.
/// Shared by `POST /v1/push` and signed inbound hooks.
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
    /// - Parameter sharedID: every target's push carries the same `apns-id` (the caller gave one);
    ///   otherwise each gets its own.
    func send(app: App, type: APNsPushType, tokens: [String], devices: [String], index: Int, sharedID: Bool = false,
              make: (String) throws(HeraldError) -> APNsPush) async -> [Result] {
        var targets: [(token: String, device: String?)] = tokens.map { ($0, nil) }
        var results: [Result] = []
        for deviceID in devices {
            guard let device = try? await services.store.device(appID: app.id, id: deviceID) else {
                results.append(Result(notification: index, device: deviceID, status: 404, reason: "deviceNotFound"))
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
        guard !pushes.isEmpty else { return results }
        let outcomes = await gateway.send(pushes, app: app)
        for (device, outcome) in zip(sent, outcomes) {
            results.append(Result(notification: index, token: outcome.token, device: device, status: outcome.status,
                                  apnsId: outcome.apnsID, reason: outcome.reason, timestamp: outcome.timestamp))
        }
        return results
    }
}
