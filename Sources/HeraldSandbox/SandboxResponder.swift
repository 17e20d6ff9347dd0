import Foundation
import HeraldCore
import HeraldHTTP2
import Logging

/// The HTTP/2 request handler: injects the connection faults, checks the request, applies the
/// token and rate faults, and files accepted pushes in the device's inbox, or accepted
/// broadcasts on their channel.
///
/// A broadcast has no device, so token faults never apply to it; a channel the app does not
/// have is 404 `ChannelNotRegistered` at the point where a device push meets its token faults,
/// and the rate faults, latency and GOAWAY apply to broadcasts as to device pushes.
final class SandboxResponder: Sendable {
    private let validator: PushRequestValidator
    private let inboxes: DeviceInboxes
    private let channels: BroadcastChannels
    private let faults: SharedFaults
    private let streamLimits = StreamLimitRaiser()
    private let logger: Logger
    private let fcm: FCMService
    private let webPush: WebPushService
    private let channelManagement: ChannelManagementService

    init(validator: PushRequestValidator, inboxes: DeviceInboxes, channels: BroadcastChannels, faults: SharedFaults,
         fcm: FCMService, webPush: WebPushService, logger: Logger) {
        self.fcm = fcm
        self.webPush = webPush
        self.validator = validator
        self.inboxes = inboxes
        self.channels = channels
        self.channelManagement = ChannelManagementService(validator: validator, channels: channels, logger: logger)
        self.faults = faults
        self.logger = logger
    }

    func respond(to request: HTTP2ServerRequest, on context: HTTP2ServerConnectionContext) async -> HTTP2Response {
        // When the request reached the device's APNs, before any injected slowness.
        let arrived = Date()
        let faults = self.faults.current
        // GOAWAY first, so that the client learns of it while this last stream is still served.
        if let limit = faults.goAwayAfterStreams, context.streamsHandled >= limit {
            context.goAwayAfterCurrent()
        }
        if faults.latencyMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(faults.latencyMilliseconds))
        }
        // FCM, Web Push and APNs' channel management share the port, told apart by path as the
        // real hosts are by name.
        if FCMService.handles(request.path) || request.path.hasPrefix(WebPushService.pathPrefix)
            || ChannelManagementService.handles(request.path) {
            let response = if FCMService.handles(request.path) {
                fcm.respond(to: request)
            } else if ChannelManagementService.handles(request.path) {
                channelManagement.respond(to: request, now: Date())
            } else {
                webPush.respond(to: request)
            }
            // The connection's stream limit rises with its first success, whichever service answered.
            if (200..<300).contains(response.status) { streamLimits.noteSuccess(on: context) }
            return response
        }
        let now = Date()
        let push: ValidatedPush
        do {
            push = try validator.validate(request, clientCertificateSubject: context.clientCertificateSubject, now: now)
        } catch {
            return refuse(request, error.reason, now: now, why: "check")
        }
        switch push.address {
        case .device(let token):
            if let reason = faults.reason(forToken: token) {
                let since = faults.unregisteredTimestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? now
                return refuse(request, reason, now: since, why: "token fault")
            }
        case .channel(let bundleID, let channelID):
            if channels.channel(channelID, bundleID: bundleID) == nil {
                return refuse(request, .channelNotRegistered, now: now, why: "channel")
            }
        }
        if Self.roll(faults.unavailableRate) { return refuse(request, .serviceUnavailable, now: now, why: "rate fault") }
        if Self.roll(faults.tooManyRequestsRate) { return refuse(request, .tooManyRequests, now: now, why: "rate fault") }

        let apnsId = push.apnsId ?? APNsReply.newID()
        let uniqueId = APNsReply.newID()
        switch push.address {
        case .device(let token):
            inboxes.append(InboxEntry(token: token, apnsId: apnsId, uniqueId: uniqueId, receivedAt: arrived, pushType: push.pushType,
                                      topic: push.topic, priority: push.priority, collapseId: push.collapseId,
                                      expiration: push.expiration, headers: push.headers, payload: push.payload,
                                      credential: push.credential))
            logger.info("push accepted", metadata: [
                "token": "\(DeviceRules.redacted(token: token))", "apns-id": "\(apnsId)", "push-type": "\(push.pushType.rawValue)", "topic": "\(push.topic)",
            ])
        case .channel(let bundleID, let channelID):
            let entry = BroadcastEntry(apnsId: apnsId, uniqueId: uniqueId, receivedAt: arrived, priority: push.priority,
                                       collapseId: push.collapseId, expiration: push.expiration, payload: push.payload,
                                       credential: push.credential)
            // Deleted between the check above and now: answered as if it had been gone all along.
            guard channels.file(entry, channelID: channelID, bundleID: bundleID) == .filed else {
                return refuse(request, .channelNotRegistered, now: now, why: "channel")
            }
            logger.info("broadcast accepted", metadata: ["bundle": "\(bundleID)", "channel": "\(channelID)", "apns-id": "\(apnsId)"])
        }
        streamLimits.noteSuccess(on: context)
        return APNsReply.success(apnsId: apnsId, uniqueId: uniqueId)
    }

    private func refuse(_ request: HTTP2ServerRequest, _ reason: APNsReason, now: Date, why: String) -> HTTP2Response {
        inboxes.noteRefusal(path: request.path)
        logger.info("push refused", metadata: [
            "path": "\(DeviceRules.redacted(path: request.path))", "status": "\(reason.status)", "reason": "\(reason.rawValue)", "by": "\(why)",
        ])
        return APNsReply.failure(reason, apnsId: APNsReply.responseID(for: request), now: now)
    }

    /// True with probability `rate`; 0 never and 1 always, so tests stay deterministic.
    static func roll(_ rate: Double) -> Bool {
        rate >= 1 || (rate > 0 && Double.random(in: 0..<1) < rate)
    }

    /// The handler for `HTTP2Server`; captures the responder, not the gateway, so no cycle forms.
    var handler: HTTP2Server.Handler {
        { [self] request, context in await respond(to: request, on: context) }
    }
}
