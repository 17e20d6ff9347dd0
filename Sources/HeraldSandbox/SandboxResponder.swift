import Foundation
import HeraldCore
import HeraldHTTP2
import Logging

/// The HTTP/2 request handler: injects the connection faults, checks the request, applies the
/// token and rate faults, and files accepted pushes in the device's inbox.
final class SandboxResponder: Sendable {
    private let validator: PushRequestValidator
    private let inboxes: DeviceInboxes
    private let faults: SharedFaults
    private let streamLimits = StreamLimitRaiser()
    private let logger: Logger
    private let fcm: FCMService
    private let webPush: WebPushService

    init(validator: PushRequestValidator, inboxes: DeviceInboxes, faults: SharedFaults, fcm: FCMService, webPush: WebPushService,
         logger: Logger) {
        self.fcm = fcm
        self.webPush = webPush
        self.validator = validator
        self.inboxes = inboxes
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
        // FCM and Web Push share the port, told apart by path as the real hosts are by name.
        if FCMService.handles(request.path) || request.path.hasPrefix(WebPushService.pathPrefix) {
            let response = FCMService.handles(request.path) ? fcm.respond(to: request) : webPush.respond(to: request)
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
        if let reason = faults.reason(forToken: push.token) {
            let since = faults.unregisteredTimestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? now
            return refuse(request, reason, now: since, why: "token fault")
        }
        if Self.roll(faults.unavailableRate) { return refuse(request, .serviceUnavailable, now: now, why: "rate fault") }
        if Self.roll(faults.tooManyRequestsRate) { return refuse(request, .tooManyRequests, now: now, why: "rate fault") }

        let apnsId = push.apnsId ?? APNsReply.newID()
        let uniqueId = APNsReply.newID()
        inboxes.append(InboxEntry(token: push.token, apnsId: apnsId, uniqueId: uniqueId, receivedAt: arrived, pushType: push.pushType,
                                  topic: push.topic, priority: push.priority, collapseId: push.collapseId,
                                  expiration: push.expiration, headers: push.headers, payload: push.payload,
                                  credential: push.credential))
        streamLimits.noteSuccess(on: context)
        logger.info("push accepted", metadata: [
            "token": "\(DeviceRules.redacted(token: push.token))", "apns-id": "\(apnsId)", "push-type": "\(push.pushType.rawValue)", "topic": "\(push.topic)",
        ])
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
