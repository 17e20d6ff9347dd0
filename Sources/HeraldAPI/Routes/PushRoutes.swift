import Foundation
import HeraldCore
import HeraldDelivery
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
    /// A resend with the same `Idempotency-Key` pushes nothing and gets the first results.
    let idempotency: IdempotentRequests

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
        /// A Live Activity push, instead of `aps`: to tokens, devices, or a broadcast `channel`.
        var liveActivity: LiveActivityBody?
        /// A broadcast channel's name: the push goes to every activity subscribed to it.
        var channel: String?
    }

    /// One entry as read from the body, or why it could not be read. Entries are decoded in the
    /// one pass over the body, each on its own, so a bad entry gets its own error rows while the
    /// good ones still go out.
    enum DecodedEntry: Decodable {
        case entry(Entry)
        case invalid(HeraldError)

        init(from decoder: any Decoder) {
            do {
                self = .entry(try Entry(from: decoder))
            } catch let error as DecodingError {
                self = .invalid(JSONBody.describe(error))
            } catch {
                self = .invalid(.invalid(.invalidField, "\(error)"))
            }
        }
    }

    typealias Result = PushSender.Result

    func register(on router: Router<HeraldRequestContext>) {
        router.post("/v1/push") { request, context in
            try await idempotency.run(request, context: context) { try await push($0, context: context) }
        }
    }

    /// `POST /v1/push`: every entry sent, a result per token.
    private func push(_ request: Request, context: HeraldRequestContext) async throws -> Response {
        struct Body: Decodable { var notifications: [DecodedEntry]? }
        let body = try await services.body.decode(Body.self, from: request)
        guard let entries = body.notifications, !entries.isEmpty else {
            throw HeraldError.invalid(.missingField, "notifications is required: a non-empty array")
        }
        guard entries.count <= maximumBatch else {
            throw HeraldError(.tooLarge, reason: .batchTooLarge,
                              message: "\(entries.count) notifications in one batch; the limit is \(maximumBatch)")
        }
        var results: [Result] = []
        for (index, entry) in entries.enumerated() {
            results += await send(entry, index: index, principal: context.principal)
        }
        return try Response.json(["results": results])
    }

    private func send(_ decoded: DecodedEntry, index: Int, principal: Principal) async -> [Result] {
        func refusal(_ error: HeraldError, status: Int, token: String? = nil, device: String? = nil) -> Result {
            Result(notification: index, token: token, device: device, status: status, reason: error.reason.rawValue)
        }
        let entry: Entry
        switch decoded {
        case .entry(let decodedEntry): entry = decodedEntry
        case .invalid(let error): return [refusal(error, status: 422)]
        }
        guard let appID = entry.app else { return [refusal(.invalid(.missingField, "app is required"), status: 422)] }
        guard principal.mayUse(app: appID) else {
            return [refusal(HeraldError(.invalid, reason: .forbidden, message: "this key belongs to another app"), status: 403)]
        }
        guard let app = try? await services.directory.app(id: appID) else {
            return [refusal(.appNotFound(appID), status: 404)]
        }
        if let liveActivity = entry.liveActivity {
            return await sendLiveActivity(liveActivity, entry: entry, app: app, index: index)
        }
        guard entry.channel == nil else {
            return [refusal(.invalid(.missingLiveActivity, "a broadcast to a channel carries liveActivity"), status: 422)]
        }
        guard let type = APNsPushType(rawValue: entry.type ?? "alert") else {
            return [refusal(.invalid(.invalidPushType, "type must be one of \(APNsPushType.allCases.map(\.rawValue))"), status: 422)]
        }
        guard (entry.tokens == nil) != (entry.devices == nil) else {
            return [refusal(.invalid(.missingTokens, "give tokens or devices (one of them)"), status: 422)]
        }
        guard let aps = entry.aps else { return [refusal(.invalid(.missingField, "aps is required"), status: 422)] }

        let sender = PushSender(audiences: services.directory, gateway: gateway)
        let channel = Swift.Result { () throws(HeraldError) -> ChannelPush in
            try ChannelPush(type: type, aps: aps, custom: entry.data ?? [:], collapseID: entry.collapseId,
                            expiration: entry.expiration, priority: entry.priority, id: entry.id)
        }
        return await sender.send(app: app, type: type, tokens: entry.tokens ?? [], devices: entry.devices ?? [], index: index,
                                 sharedID: entry.id != nil, channel: channel) {
            token throws(HeraldError) in
            try APNsPush(token: token, type: type, bundleID: app.id, topic: entry.topic, priority: entry.priority,
                         expiration: entry.expiration, id: entry.id, collapseID: entry.collapseId, aps: aps,
                         custom: entry.data ?? [:])
        }
    }

    /// A Live Activity push now, to tokens, devices or a channel (``PushSender/sendLiveActivity``).
    private func sendLiveActivity(_ body: LiveActivityBody, entry: Entry, app: App, index: Int) async -> [Result] {
        guard entry.aps == nil, entry.type == nil || entry.type == APNsPushType.liveactivity.rawValue else {
            return [Result(notification: index, channel: entry.channel, status: 422, reason: Reason.alertOrLiveActivity.rawValue)]
        }
        let liveActivity: LiveActivity
        do {
            liveActivity = try body.parsed()
        } catch {
            return [Result(notification: index, channel: entry.channel, status: 422, reason: error.reason.rawValue)]
        }
        let target = LiveActivityTarget(tokens: entry.tokens, devices: entry.devices, channel: entry.channel)
        let options = LiveActivitySendOptions(id: entry.id, collapseID: entry.collapseId, priority: entry.priority,
                                              expiration: entry.expiration, data: entry.data ?? [:])
        return await PushSender(audiences: services.directory, gateway: gateway)
            .sendLiveActivity(liveActivity, app: app, to: target, options: options, index: index)
    }
}
