import Foundation
import Hummingbird

/// The admin API, plain JSON over HTTP/1.1 for curl, scripts and `herald sandbox inbox`:
///
/// - `GET /healthz`
/// - `GET /inbox`: `{"counts": {token: n}, "total": n}`
/// - `GET /inbox/{token}`: `{"token": t, "notifications": [InboxEntry]}`, oldest first
/// - `DELETE /inbox` (every inbox, and every channel's broadcasts; channels stay) and
///   `DELETE /inbox/{token}`: 204
/// - `GET /activities/{token}`: the token's Live Activity timeline, `{"token": t, "events":
///   [ActivityEvent]}` in arrival order, from its inbox's `liveactivity` pushes
/// - `GET /channels/{bundle}`: the app's broadcast channels, `{"channels": [{"apnsChannelId",
///   "messageStoragePolicy", "broadcasts": n}]}`, oldest first
/// - `GET /broadcasts/{channelId}` or `GET /broadcasts?channel={channelId}`: `{"channel": id,
///   "broadcasts": [ActivityEvent]}`, oldest first; 404 `channelNotRegistered` for a channel no
///   app has. Channel ids are base64 and may hold `/`, `+` and `=`: percent-escape them in the
///   path, or pass them as the query, which needs no care for `/`
/// - `GET /faults` and `PUT /faults`: the `SandboxFaults` JSON; PUT replaces them all
/// - `GET /fcm/inbox/{token}`: `{"address": t, "messages": [ChannelEntry]}`
/// - `POST /fcm/revoke`: forgets every FCM access token issued (the next send is a 401)
/// - `POST /webpush/subscriptions` `{"prefix": "gone"}`: a new subscription, as the browser's
///   `PushSubscription.toJSON()`
/// - `GET /webpush/inbox/{id}`: what the subscription received, decrypted
///
/// Errors use the Herald API's shape, `{"error": {"reason", "message"}}`, so the same client
/// code reads both.
struct SandboxAdminRoutes: Sendable {
    let inboxes: DeviceInboxes
    let faults: SharedFaults
    let channelInboxes: ChannelInboxes
    let broadcastChannels: BroadcastChannels
    let fcm: FCMService
    let webPush: WebPushService
    /// The sandbox's own origin, where subscriptions point.
    let origin: @Sendable () -> String

    struct ChannelInbox: Codable {
        var address: String
        var messages: [ChannelEntry]
        var refusals: Int
    }

    /// Faults are a few hundred bytes; a megabyte leaves room for long token lists.
    static let maximumBodyBytes = 1 << 20

    struct Counts: Codable {
        var counts: [String: Int]
        var total: Int
    }

    struct Inbox: Codable {
        var token: String
        var notifications: [InboxEntry]
    }

    struct Timeline: Codable {
        var token: String
        var events: [ActivityEvent]
    }

    struct Channels: Codable {
        var channels: [BroadcastChannelSummary]
    }

    struct Broadcasts: Codable {
        var channel: String
        var broadcasts: [ActivityEvent]
    }

    struct ErrorBody: Codable {
        struct Detail: Codable {
            var reason: String
            var message: String
        }
        var error: Detail
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let inboxes = self.inboxes
        let faults = self.faults
        router.get("healthz") { _, _ in
            Self.json(["status": "ok"])
        }
        router.get("inbox") { _, _ in
            let counts = inboxes.counts()
            return Self.json(Counts(counts: counts, total: counts.values.reduce(0, +)))
        }
        router.get("inbox/:token") { _, context in
            let token = try context.parameters.require("token").lowercased()
            return Self.json(Inbox(token: token, notifications: inboxes.inbox(token: token)))
        }
        let broadcastChannels = self.broadcastChannels
        router.delete("inbox") { _, _ in
            inboxes.clear()
            broadcastChannels.clearBroadcasts()
            return Response(status: .noContent)
        }
        router.delete("inbox/:token") { _, context in
            inboxes.clear(token: try context.parameters.require("token"))
            return Response(status: .noContent)
        }
        router.get("activities/:token") { _, context in
            let token = try context.parameters.require("token").lowercased()
            return Self.json(Timeline(token: token, events: ActivityEvent.timeline(of: inboxes.inbox(token: token))))
        }
        router.get("channels/:bundle") { _, context in
            let bundleID = try context.parameters.require("bundle")
            return Self.json(Channels(channels: broadcastChannels.channels(bundleID: bundleID).map(\.summary)))
        }
        // The id from the query, else from the rest of the path (which may hold unescaped `/`).
        let broadcasts: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let prefix = "/broadcasts/"
            let path = request.uri.path
            let fromPath = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : ""
            let id = request.uri.queryParameters["channel"].map(String.init)
                ?? fromPath.removingPercentEncoding ?? fromPath
            guard !id.isEmpty else {
                return Self.error(.badRequest, reason: "missingChannel", message: "name the channel: /broadcasts/{id} or /broadcasts?channel={id}")
            }
            guard let channel = broadcastChannels.channel(id) else {
                return Self.error(.notFound, reason: "channelNotRegistered", message: "no app has the channel \(id)")
            }
            return Self.json(Broadcasts(channel: id, broadcasts: channel.broadcasts.compactMap(\.activityEvent)))
        }
        router.get("broadcasts", use: broadcasts)
        router.get("broadcasts/**", use: broadcasts)
        let (channelInboxes, fcm, webPush, origin) = (self.channelInboxes, self.fcm, self.webPush, self.origin)
        router.get("fcm/inbox/:token") { _, context in
            let token = try context.parameters.require("token")
            return Self.json(ChannelInbox(address: token, messages: channelInboxes.inbox(token), refusals: channelInboxes.refusals(token)))
        }
        router.post("fcm/revoke") { _, _ in
            fcm.revokeAccessTokens()
            return Response(status: .noContent)
        }
        router.post("webpush/subscriptions") { request, _ in
            struct Body: Decodable { var prefix: String? }
            let bytes = try await request.body.collect(upTo: Self.maximumBodyBytes)
            let body = bytes.readableBytes == 0 ? Body() : try? JSONDecoder().decode(Body.self, from: Data(bytes.readableBytesView))
            let prefix = body?.prefix ?? ""
            guard prefix.utf8.allSatisfy({ $0 >= 97 && $0 <= 122 }) else {
                return Self.error(.badRequest, reason: "invalidPrefix", message: "prefix must be lowercase letters")
            }
            return Self.json(try webPush.subscribe(origin: origin(), prefix: prefix), status: .created)
        }
        router.get("webpush/inbox/:id") { _, context in
            let id = try context.parameters.require("id")
            return Self.json(ChannelInbox(address: id, messages: channelInboxes.inbox(id), refusals: channelInboxes.refusals(id)))
        }
        router.get("faults") { _, _ in
            Self.json(faults.current)
        }
        router.put("faults") { request, _ in
            let body = try await request.body.collect(upTo: Self.maximumBodyBytes)
            do {
                let replacement = try JSONDecoder().decode(SandboxFaults.self, from: Data(body.readableBytesView))
                faults.current = replacement
                return Self.json(replacement)
            } catch {
                return Self.error(.badRequest, reason: "invalidFaults", message: Self.describe(error))
            }
        }
        return router
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return Response(status: .internalServerError)
        }
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ status: HTTPResponse.Status, reason: String, message: String) -> Response {
        json(ErrorBody(error: .init(reason: reason, message: message)), status: status)
    }

    /// Decoding errors name the field, which is what a person fixing a faults file needs.
    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty:
            return context.debugDescription.isEmpty ? "the body is not valid JSON" : context.debugDescription
        case DecodingError.dataCorrupted(let context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
