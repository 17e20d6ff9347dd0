import Foundation
import HeraldCore
import HeraldDelivery
import HeraldDirectory
import HeraldPush

/// A signed inbound webhook, once its signature holds: the definition's template turns the body
/// into a push (or filters it out), the request's keys are claimed so a replay or a resend pushes
/// nothing, the push is sent, and the answer is kept under the keys.
public struct HookIntake: Sendable {
    private let directory: Directory
    private let keys: IdempotencyKeys
    private let gateway: PushGateway
    /// The most tokens and devices one request's push may fan out to.
    private let maxTargets: Int

    public init(directory: Directory, keys: IdempotencyKeys, gateway: PushGateway, maxTargets: Int) {
        self.directory = directory
        self.keys = keys
        self.gateway = gateway
        self.maxTargets = maxTargets
    }

    /// What a request got.
    public enum Answer: Sendable, Equatable {
        /// This request ran: the answer's JSON.
        case answered(String)
        /// A request with one of its keys ran before: that answer's JSON.
        case replayed(String)
    }

    /// Renders, claims, sends and remembers one verified request.
    ///
    /// - Parameters:
    ///   - messageKey: the signed message's own key (its timestamp and body), claimed first.
    ///   - requestKey: the request's `Idempotency-Key` header, one more key; it can add a key,
    ///     never replace the signed ones.
    /// - Throws: the template's and the payload's refusals and `tooManyTokens`, before anything is
    ///   claimed; `idempotencyKeyInProgress` while a first request with one of the keys runs;
    ///   `appNotFound`, with the keys released.
    public func receive(_ body: JSONValue, definition: WebhookDefinition, messageKey: String,
                        requestKey: String?) async throws -> Answer {
        let push = try definition.template.apply(to: body)
        if let push {
            let targets = push.tokens.count + push.devices.count
            guard targets <= maxTargets else {
                throw HeraldError(.tooLarge, reason: .tooManyTokens,
                                  message: "the hook's push names \(targets) tokens and devices; hooks.maxTokensPerRequest is \(maxTargets)")
            }
            // The payload is the same for every token: refuse it once, before anything is claimed.
            if let liveActivity = push.liveActivity {
                _ = try liveActivity.validated(for: push.channel == nil ? .device : .channel).checkPayload(custom: push.data)
            } else {
                try APNsPush.checkPayload(type: push.type, aps: push.aps, custom: push.data)
            }
        }
        let scope = definition.name
        // The signed body's key comes first: an unsigned header can add a key, never replace it.
        let claimed = ["signature:" + messageKey] + [push?.idempotencyKey, requestKey].compactMap { $0.map { "key:" + $0 } }
        switch try await keys.claim(claimed, scope: scope, now: directory.clock.now()) {
        case .answered(let first):
            return .replayed(first)
        case .inProgress:
            throw HeraldError(.conflict, reason: .idempotencyKeyInProgress,
                              message: "a request with this signature or idempotency key is still being handled")
        case .claimed:
            break
        }
        var reply = HookReply(pushed: false, filtered: true, results: [])
        if let push {
            do {
                reply = HookReply(pushed: true, filtered: false, results: try await send(push, definition: definition))
            } catch {
                await keys.release(claimed, scope: scope)
                throw error
            }
            // Cut short (the request timed out) before any push was accepted: free the keys so a
            // resend can deliver. Once something reached APNs, the keys keep the answer.
            if Task.isCancelled, !reply.results.contains(where: { $0.status == 200 }) {
                await keys.release(claimed, scope: scope)
                throw CancellationError()
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(reply), as: UTF8.self)
        // The pushes went out: were the answer lost, a resend after the claim's lease would push again.
        try await keys.complete(claimed, scope: scope, answer: text, persisting: true)
        return .answered(text)
    }

    private func send(_ push: TemplatedPush, definition: WebhookDefinition) async throws -> [PushSender.Result] {
        let app = try await directory.existingApp(definition.app)
        let sender = PushSender(audiences: directory, gateway: gateway)
        if let liveActivity = push.liveActivity {
            let target = LiveActivityTarget(tokens: push.channel == nil && !push.tokens.isEmpty ? push.tokens : nil,
                                            devices: push.channel == nil && push.tokens.isEmpty ? push.devices : nil,
                                            channel: push.channel)
            return await sender.sendLiveActivity(liveActivity, app: app, to: target,
                                                 options: LiveActivitySendOptions(collapseID: push.collapseID, data: push.data),
                                                 index: 0)
        }
        let channel = Swift.Result { () throws(HeraldError) -> ChannelPush in
            try ChannelPush(type: push.type, aps: push.aps, custom: push.data, collapseID: push.collapseID)
        }
        return await sender.send(app: app, type: push.type, tokens: push.tokens, devices: push.devices,
                                 index: 0, channel: channel) { token throws(HeraldError) in
            try APNsPush(token: token, type: push.type, bundleID: app.id, collapseID: push.collapseID,
                         aps: push.aps, custom: push.data)
        }
    }
}

/// The answer to an inbound hook.
struct HookReply: Encodable {
    var pushed: Bool
    var filtered: Bool
    var results: [PushSender.Result]
}
