import Foundation
import HeraldCore
import HeraldPush
import Hummingbird

/// `POST /v1/push`: one or more pushes, each to tokens or devices, with a result per token.
///
/// Entries are judged one by one: a bad entry gets its own error results and the good ones still
/// go out.
struct PushRoutes {
    let services: APIServices
    let gateway: PushGateway
    let maximumBatch: Int

    /// One entry of the batch, as sent.
    struct Entry: Decodable {
        var app: String?
        var tokens: [String]?
        var devices: [String]?
        var type: String?
        var topic: String?
        var priority: Int?
        var expiration: Int?
        var collapseId: String?
        var id: String?
        var aps: APS?
        var data: [String: JSONValue]?
    }

    /// One row of the answer.
    struct Result: Encodable {
        var notification: Int
        var token: String?
        var device: String?
        var status: Int
        var apnsId: String?
        var reason: String?
        var timestamp: Int64?
    }

    func register(on router: Router<BasicRequestContext>) {
        router.post("/v1/push") { request, _ in
            struct Body: Decodable { var notifications: [JSONValue]? }
            let body = try await services.body.decode(Body.self, from: request)
            guard let entries = body.notifications, !entries.isEmpty else {
                throw HeraldError.invalid("missingField", "notifications is required: a non-empty array")
            }
            guard entries.count <= maximumBatch else {
                throw HeraldError(.tooLarge, reason: "batchTooLarge",
                                  message: "\(entries.count) notifications in one batch; the limit is \(maximumBatch)")
            }
            var results: [Result] = []
            for (index, entry) in entries.enumerated() {
                results += await send(entry, index: index)
            }
            return try Response.json(["results": results])
        }
    }

    private func send(_ raw: JSONValue, index: Int) async -> [Result] {
        func refusal(_ error: HeraldError, status: Int, token: String? = nil, device: String? = nil) -> Result {
            Result(notification: index, token: token, device: device, status: status, reason: error.reason)
        }
        let entry: Entry
        do {
            entry = try JSONDecoder().decode(Entry.self, from: JSONEncoder().encode(raw))
        } catch let error as DecodingError {
            return [refusal(JSONBody.describe(error), status: 422)]
        } catch {
            return [refusal(.invalid("invalidField", "\(error)"), status: 422)]
        }
        guard let appID = entry.app else { return [refusal(.invalid("missingField", "app is required"), status: 422)] }
        guard let app = try? await services.store.app(id: appID) else {
            return [refusal(.notFound("appNotFound", "app '\(appID)' does not exist"), status: 404)]
        }
        guard let type = APNsPushType(rawValue: entry.type ?? "alert") else {
            return [refusal(.invalid("invalidPushType", "type must be one of \(APNsPushType.allCases.map(\.rawValue))"), status: 422)]
        }
        guard (entry.tokens == nil) != (entry.devices == nil) else {
            return [refusal(.invalid("missingTokens", "give tokens or devices (one of them)"), status: 422)]
        }
        guard let aps = entry.aps else { return [refusal(.invalid("missingField", "aps is required"), status: 422)] }

        // Resolve targets: explicit tokens, or each device's token (its VoIP token for voip pushes).
        var targets: [(token: String?, device: String?)] = entry.tokens?.map { ($0, nil) } ?? []
        var results: [Result] = []
        for deviceID in entry.devices ?? [] {
            guard let device = try? await services.store.device(appID: app.id, id: deviceID) else {
                results.append(refusal(.notFound("deviceNotFound", ""), status: 404, device: deviceID))
                continue
            }
            let token = type.usesVoIPToken ? device.voipToken : device.token
            guard let token else {
                results.append(refusal(.invalid(type.usesVoIPToken ? "noVoipToken" : "noDeviceToken", ""), status: 422, device: deviceID))
                continue
            }
            targets.append((token, deviceID))
        }
        var pushes: [APNsPush] = []
        var sentTargets: [(token: String?, device: String?)] = []
        for target in targets {
            do {
                pushes.append(try APNsPush(token: target.token ?? "", type: type, bundleID: app.id, topic: entry.topic,
                                           priority: entry.priority, expiration: entry.expiration, id: entry.id,
                                           collapseID: entry.collapseId, aps: aps, custom: entry.data ?? [:]))
                sentTargets.append(target)
            } catch {
                results.append(refusal(error, status: 422, token: target.token, device: target.device))
            }
        }
        guard !pushes.isEmpty else { return results }
        let outcomes = await gateway.send(pushes, app: app)
        for (target, outcome) in zip(sentTargets, outcomes) {
            results.append(Result(notification: index, token: outcome.token, device: target.device, status: outcome.status,
                                  apnsId: outcome.apnsID, reason: outcome.reason, timestamp: outcome.timestamp))
        }
        return results
    }
}
