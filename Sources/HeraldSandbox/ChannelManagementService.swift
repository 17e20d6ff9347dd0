import Foundation
import HeraldCore
import HeraldHTTP2
import Logging

/// The sandbox's APNs channel management API (iOS 18 broadcast channels). APNs serves it on a
/// host of its own (`api-manage-broadcast…`); the sandbox serves it on its one port, told apart
/// by path, so Herald can point both at the sandbox:
///
/// - `POST /1/apps/{bundle}/channels` `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`
///   → 201, `apns-channel-id` (base64 of 16 random bytes), empty body
/// - `GET /1/apps/{bundle}/channels` with `apns-channel-id` → 200
///   `{"message-storage-policy": n, "push-type": "LiveActivity"}`
/// - `DELETE /1/apps/{bundle}/channels` with `apns-channel-id` → 204
/// - `GET /1/apps/{bundle}/all-channels` → 200 `{"channels": [id, …]}`, oldest first
///
/// Every answer carries `apns-request-id`: the request's, or a new lowercase UUID. Refusals are
/// APNs' `{"reason": …}`, judged in this order: path (404 `BadPath`), method (405), duplicate
/// headers, provider token (403; a client certificate is not enough, as channels take token auth
/// only), then the route's own: a body that is not a JSON object is `PayloadEmpty`, a policy other
/// than 0 or 1 `InvalidPolicy`, a push type other than `LiveActivity` `InvalidPushType`, an app at
/// its channel limit 429 `TooManyRequests`; a missing channel id `MissingChannelId`, one that is
/// not base64 `BadChannelId`, and one the app does not have 404 `ChannelNotRegistered`.
///
/// Latency and GOAWAY faults apply to these requests as to every other; the token and rate
/// faults stand for what happens to pushes and do not.
final class ChannelManagementService: Sendable {
    private let validator: PushRequestValidator
    private let channels: BroadcastChannels
    private let logger: Logger

    init(validator: PushRequestValidator, channels: BroadcastChannels, logger: Logger) {
        self.validator = validator
        self.channels = channels
        self.logger = logger
    }

    static let pathPrefix = "/1/apps/"
    /// The only `push-type` a channel takes.
    static let pushType = "LiveActivity"

    static func handles(_ path: String) -> Bool { path.hasPrefix(pathPrefix) }

    /// What a request asks for, from its path and method.
    enum Operation: Equatable {
        /// `POST /1/apps/{bundle}/channels`
        case create(bundleID: String)
        /// `GET /1/apps/{bundle}/channels`
        case read(bundleID: String)
        /// `DELETE /1/apps/{bundle}/channels`
        case delete(bundleID: String)
        /// `GET /1/apps/{bundle}/all-channels`
        case list(bundleID: String)

        /// - Throws: `BadPath` for a path outside the API, `MethodNotAllowed` for a method its
        ///   path does not take.
        init(method: String, path: String) throws(PushRequestValidator.Refusal) {
            let parts = path.dropFirst(ChannelManagementService.pathPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, PushRequestValidator.isBundleID(parts[0]) else { throw .init(.badPath) }
            let bundleID = String(parts[0])
            switch (parts[1], method) {
            case ("channels", "POST"): self = .create(bundleID: bundleID)
            case ("channels", "GET"): self = .read(bundleID: bundleID)
            case ("channels", "DELETE"): self = .delete(bundleID: bundleID)
            case ("all-channels", "GET"): self = .list(bundleID: bundleID)
            case ("channels", _), ("all-channels", _): throw .init(.methodNotAllowed)
            default: throw .init(.badPath)
            }
        }
    }

    func respond(to request: HTTP2ServerRequest, now: Date) -> HTTP2Response {
        let requestID = request.header("apns-request-id").flatMap { $0.isEmpty ? nil : $0 } ?? APNsReply.newID()
        do {
            return try answer(request, requestID: requestID, now: now)
        } catch {
            logger.info("channel request refused", metadata: [
                "path": "\(request.path)", "method": "\(request.method)", "status": "\(error.reason.status)",
                "reason": "\(error.reason.rawValue)",
            ])
            return APNsReply.failure(error.reason, identifiedBy: ("apns-request-id", requestID), now: now)
        }
    }

    private func answer(_ request: HTTP2ServerRequest, requestID: String, now: Date) throws(PushRequestValidator.Refusal) -> HTTP2Response {
        let operation = try Operation(method: request.method, path: request.path)
        var seen: Set<String> = []
        for header in request.headers where PushRequestValidator.isCheckedForDuplicates(header.name.lowercased()) {
            guard seen.insert(header.name.lowercased()).inserted else { throw .init(.duplicateHeaders) }
        }
        // Token auth only: a client certificate is not offered as an alternative.
        _ = try validator.authenticate(authorization: request.header("authorization"), clientCertificateSubject: nil, now: now)

        let identified: HTTP2Header = ("apns-request-id", requestID)
        switch operation {
        case .create(let bundleID):
            let policy = try Self.creationPolicy(request.body)
            switch channels.create(bundleID: bundleID, messageStoragePolicy: policy) {
            case .created(let channelID):
                logger.info("channel created", metadata: ["bundle": "\(bundleID)", "channel": "\(channelID)"])
                return HTTP2Response(status: 201, headers: [("apns-channel-id", channelID), identified])
            case .limitReached:
                throw .init(.tooManyRequests)
            }
        case .read(let bundleID):
            let id = try PushRequestValidator.channelID(request.header("apns-channel-id"))
            guard let channel = channels.channel(id, bundleID: bundleID) else { throw .init(.channelNotRegistered) }
            return Self.json(["message-storage-policy": .number(Double(channel.messageStoragePolicy)),
                              "push-type": .string(Self.pushType)], identified: identified)
        case .delete(let bundleID):
            let id = try PushRequestValidator.channelID(request.header("apns-channel-id"))
            guard channels.delete(id, bundleID: bundleID) else { throw .init(.channelNotRegistered) }
            logger.info("channel deleted", metadata: ["bundle": "\(bundleID)", "channel": "\(id)"])
            return HTTP2Response(status: 204, headers: [identified])
        case .list(let bundleID):
            let ids = channels.channels(bundleID: bundleID).map { JSONValue.string($0.id) }
            return Self.json(["channels": .array(ids)], identified: identified)
        }
    }

    /// The `message-storage-policy` of a creation body, once the body has proved to be one.
    static func creationPolicy(_ body: [UInt8]) throws(PushRequestValidator.Refusal) -> Int {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(body)), case .object(let fields) = value else {
            throw .init(.payloadEmpty)
        }
        guard case .number(let policy)? = fields["message-storage-policy"], policy == 0 || policy == 1 else {
            throw .init(.invalidPolicy)
        }
        guard fields["push-type"] == .string(pushType) else { throw .init(.invalidPushType) }
        return Int(policy)
    }

    static func json(_ fields: [String: JSONValue], identified: HTTP2Header) -> HTTP2Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(JSONValue.object(fields))) ?? Data()
        return HTTP2Response(status: 200, headers: [("content-type", "application/json; charset=utf-8"), identified],
                             body: [UInt8](body))
    }
}
