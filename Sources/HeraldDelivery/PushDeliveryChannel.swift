import Foundation
import HeraldCore
import HeraldCrypto
import HeraldPush
import HeraldStorage

/// Delivers fired local notifications as alert pushes, as iOS presents a local notification when
/// the app is not in the foreground: through APNs, FCM or Web Push by the device's platform. Apps
/// without settings for a device's platform have its occurrences recorded.
public struct PushDeliveryChannel: DeliveryChannel {
    let gateway: PushGateway
    let store: any DeliveryStore
    /// Also raise `delivery.succeeded` events (failures always raise `delivery.failed`).
    let reportsSuccess: Bool

    public init(gateway: PushGateway, store: any DeliveryStore, reportsSuccess: Bool = false) {
        self.gateway = gateway
        self.store = store
        self.reportsSuccess = reportsSuccess
    }

    public func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        await deliver(batch, contents: batch.map { try? $0.content() })
    }

    /// Delivers `batch` whose contents were decoded already (nil: unreadable), as the router has
    /// them: each occurrence's content is decoded once on its way.
    func deliver(_ batch: [FiredOccurrence], contents: [NotificationContent?]) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome](repeating: .notDelivered, count: batch.count)
        let byApp = Dictionary(grouping: batch.indices, by: { batch[$0].device.appID })
        for (appID, indices) in byApp {
            let app: App?
            do {
                app = try await store.app(id: appID)
            } catch {
                for index in indices { outcomes[index] = DeliveryOutcome(.push, .failed(DeliveryResult.storeUnavailable)) }
                continue
            }
            guard let app else {
                for index in indices { outcomes[index] = .recorded }
                continue
            }
            let byPlatform = Dictionary(grouping: indices, by: { batch[$0].device.platform })
            // The platforms' services are sent to at once: one that is down or slow (an FCM
            // endpoint that does not answer) does not hold back the others. One task per
            // platform in the batch, never one per push.
            let decided = await withTaskGroup(of: [Decided].self) { group in
                for (platform, indices) in byPlatform {
                    group.addTask { await deliver(indices, of: batch, contents: contents, app: app, platform: platform) }
                }
                var all: [Decided] = []
                for await part in group { all += part }
                return all
            }
            var feedback: [FeedbackEvent] = []
            for decision in decided {
                outcomes[decision.index] = decision.outcome
                if let push = decision.push, !push.succeeded || reportsSuccess {
                    feedback.append(Self.feedback(for: batch[decision.index], result: push))
                }
            }
            // Retried for a while: the pushes went out, and their feedback must not be lost to a
            // passing fault.
            try? await retryingStoreCall(until: .now + Self.feedbackPatience) { try await store.recordFeedback(feedback) }
        }
        return outcomes
    }

    /// One occurrence's outcome, and the service's answer when it was sent.
    private struct Decided: Sendable {
        var index: Int
        var outcome: DeliveryOutcome
        var push: PushOutcome?
    }

    /// One app's occurrences for one platform: sent through its service, or recorded when the app
    /// has no settings for it. The outcome of each of `indices`.
    private func deliver(_ indices: [Int], of batch: [FiredOccurrence], contents: [NotificationContent?], app: App,
                         platform: Platform) async -> [Decided] {
        guard app.pushes(to: platform) else { return indices.map { Decided(index: $0, outcome: .recorded) } }
        var decided: [Int: Decided] = [:]
        var pushes: [PlatformPush] = []
        var sent: [Int] = []
        let now = Date()
        for index in indices {
            guard let content = contents[index] else {
                decided[index] = Decided(index: index, outcome: DeliveryOutcome(.push, .refused(DeliveryResult.contentUnreadable)))
                continue
            }
            do {
                guard let push = try Self.push(for: batch[index], content: content, app: app, now: now) else {
                    decided[index] = Decided(index: index, outcome: DeliveryOutcome(.none, .noDeviceToken))
                    continue
                }
                pushes.append(push)
                sent.append(index)
            } catch {
                decided[index] = Decided(index: index, outcome: DeliveryOutcome(.push, .refused(error.reason.rawValue)))
            }
        }
        for (index, result) in zip(sent, await gateway.send(pushes, app: app)) {
            decided[index] = Decided(index: index, outcome: DeliveryOutcome(.push, Self.result(of: result), apnsStatus: result.status,
                                                                            apnsID: result.apnsID),
                                     push: result)
        }
        return indices.compactMap { decided[$0] }
    }

    /// The push a fired occurrence becomes on its device's platform: ``apnsPush(for:content:app:)``
    /// on iOS; the alert as a ``ChannelPush`` whose collapse id is the occurrence's id elsewhere.
    /// nil when the device has no address for it.
    ///
    /// - Throws: `HeraldError` when the service would refuse it.
    static func push(for fired: FiredOccurrence, content: NotificationContent, app: App, now: Date) throws(HeraldError) -> PlatformPush? {
        guard fired.device.platform != .ios else { return try apnsPush(for: fired, content: content, app: app).map(PlatformPush.apns) }
        return try PlatformPush.channel(ChannelPush(content: content, occurrenceID: fired.occurrence.id), to: fired.device, now: now)
    }

    /// The APNs push a fired occurrence becomes, with an `apns-id` and collapse id derived from
    /// the occurrence (a resend after a crash is recognised): an alert to the device token; a
    /// Live Activity push to its token, stamped with the occurrence's instant; or a channel's
    /// broadcast. nil when the device has no address for it.
    ///
    /// - Throws: `HeraldError` when APNs would refuse it (`liveActivityNeedsTokenAuth` for an app
    ///   on certificate auth, or a payload rule).
    static func apnsPush(for fired: FiredOccurrence, content: NotificationContent, app: App) throws(HeraldError) -> APNsPush? {
        let pushID = pushID(for: fired.occurrence)
        let collapseID = collapseID(for: fired.occurrence, pushID: pushID)
        let custom = content.userInfo ?? [:]
        guard fired.device.isActivityPush(content) else {
            guard let token = fired.device.token else { return nil }
            return try APNsPush(token: token, type: .alert, bundleID: app.id, id: pushID, collapseID: collapseID,
                                aps: content.aps, custom: custom)
        }
        guard app.push?.usesTokenAuth == true else {
            throw .invalid(.liveActivityNeedsTokenAuth, "APNs takes Live Activity pushes with token auth only")
        }
        let instant = Int(fired.occurrence.scheduledFor.timeIntervalSince1970)
        if let channel = fired.device.broadcastChannel {
            guard let liveActivity = content.liveActivity else {
                throw .invalid(.invalidLiveActivity, "a broadcast carries a Live Activity update or end")
            }
            return try APNsPush(channelID: channel.apnsChannelID, bundleID: app.id, id: pushID, collapseID: collapseID,
                                aps: liveActivity.aps(timestamp: instant), custom: custom)
        }
        guard let liveActivity = content.liveActivity, let token = fired.device.address(for: liveActivity) else { return nil }
        return try APNsPush(token: token, type: .liveactivity, bundleID: app.id, id: pushID, collapseID: collapseID,
                            aps: liveActivity.aps(timestamp: instant), custom: custom)
    }

    /// How long a failing store is asked again to record a batch's feedback events.
    static let feedbackPatience: Duration = .seconds(10)

    /// A push's result: accepted; refused (APNs' answer, or Herald's own check: a 4xx); or failed
    /// on the way (no answer: transport failure, deadline).
    static func result(of outcome: PushOutcome) -> DeliveryResult {
        if outcome.succeeded { return .sent }
        let reason = outcome.reason ?? "HTTP\(outcome.status)"
        // FCM's and Web Push's "wait" (429) and server errors outlasting the gateway's deadline
        // are faults: the dispatcher tries them again later. APNs' reasons stay as they were.
        if outcome.apnsReason == nil, outcome.status == 429 || outcome.status >= 500 { return .failed(reason) }
        return outcome.apnsReason != nil || (400..<500).contains(outcome.status) ? .refused(reason) : .failed(reason)
    }

    static func feedback(for fired: FiredOccurrence, result: PushOutcome) -> FeedbackEvent {
        var payload: [String: JSONValue] = [
            "app": .string(fired.device.appID), "device": .string(fired.device.id),
            "occurrenceId": .string(fired.occurrence.id), "notificationId": .string(fired.occurrence.notificationID),
            "token": .string(result.token), "status": .number(Double(result.status)),
        ]
        if let apnsID = result.apnsID { payload["apnsId"] = .string(apnsID) }
        if let reason = result.reason { payload["reason"] = .string(reason) }
        return FeedbackEvent(type: result.succeeded ? .deliverySucceeded : .deliveryFailed, appID: fired.device.appID,
                             payload: payload, createdAt: Date())
    }

    /// The occurrence's id as `apns-collapse-id`, so a push sent again after a crash replaces the
    /// first on the device instead of showing twice; ids over APNs' 64 bytes use the derived UUID.
    static func collapseID(for occurrence: Occurrence, pushID: String) -> String {
        occurrence.id.utf8.count <= APNsPush.maximumCollapseIDBytes ? occurrence.id : pushID
    }

    /// A UUID derived from the occurrence, so a re-delivery after a crash carries the same
    /// `apns-id` and can be recognised downstream.
    static func pushID(for occurrence: Occurrence) -> String {
        var bytes = SHA256.hash(Array("\(occurrence.appID)/\(occurrence.deviceID)/\(occurrence.id)".utf8))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8: custom
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        let hex = bytes.prefix(16).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
