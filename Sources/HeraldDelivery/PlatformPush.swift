import Foundation
import HeraldCore
import HeraldPush

/// A push on its way to one device, on the service its platform uses. The one place a device's
/// platform picks the service, the address and the message: scheduled delivery
/// (``PushDeliveryChannel``), `POST /v1/push`, hooks and wake pushes all build and send through it.
///
/// ```swift
/// let push = try PlatformPush.channel(ChannelPush(content: content, occurrenceID: "n#0"), to: androidDevice, now: Date())
/// let outcomes = await gateway.send([push!], app: app)
/// ```
public enum PlatformPush: Sendable {
    case apns(APNsPush)
    case fcm(FCMMessage)
    case webPush(WebPushMessage)

    /// `push` for an android or web device: an FCM message to its token, a Web Push message to
    /// its subscription. nil when the device has no address on its platform (or is an iOS
    /// device: APNs pushes are built as ``APNsPush``).
    ///
    /// - Throws: the message's refusal (a payload its service would refuse).
    public static func channel(_ push: ChannelPush, to device: Device, now: Date) throws(HeraldError) -> PlatformPush? {
        switch device.platform {
        case .ios:
            return nil
        case .android:
            return try device.fcmToken.map { token throws(HeraldError) in .fcm(try FCMMessage(token: token, push: push, now: now)) }
        case .web:
            return try device.webPush.map { subscription throws(HeraldError) in
                .webPush(try WebPushMessage(subscription: subscription, push: push, now: now))
            }
        }
    }

    /// The same push to another device of the same platform, its payload checked and encoded once:
    /// an APNs push to its device token (a VoIP or Live Activity push is addressed where it is
    /// built), an FCM message to its FCM token, a Web Push message to its subscription. nil when
    /// that device has no such address.
    ///
    /// - Throws: the message's refusal of the new address.
    public func readdressed(to device: Device) throws(HeraldError) -> PlatformPush? {
        switch self {
        case .apns(let push): try device.token.map { token throws(HeraldError) in .apns(try push.addressed(to: token, keepingID: false)) }
        case .fcm(let message): try device.fcmToken.map { token throws(HeraldError) in .fcm(try message.addressed(to: token)) }
        case .webPush(let message): device.webPush.map { .webPush(message.addressed(to: $0)) }
        }
    }
}

extension Platform {
    /// Why a device of this platform cannot be pushed to when it has no address, and what it lacks.
    public var missingAddress: (reason: Reason, field: String) {
        switch self {
        case .ios: (.noDeviceToken, "token")
        case .android: (.noFcmToken, "fcmToken")
        case .web: (.noWebPushSubscription, "webPush subscription")
        }
    }
}

extension PushGateway {
    /// Sends each push through its platform's service, every service at once: one that is down or
    /// slow (an FCM endpoint that does not answer) holds back no other. One outcome per push, in
    /// order.
    public func send(_ pushes: [PlatformPush], app: App) async -> [PushOutcome] {
        var apns: [(index: Int, push: APNsPush)] = []
        var fcm: [(index: Int, message: FCMMessage)] = []
        var web: [(index: Int, message: WebPushMessage)] = []
        for (index, push) in pushes.enumerated() {
            switch push {
            case .apns(let push): apns.append((index, push))
            case .fcm(let message): fcm.append((index, message))
            case .webPush(let message): web.append((index, message))
            }
        }
        async let apnsOutcomes = apns.isEmpty ? [] : send(apns.map(\.push), app: app)
        async let fcmOutcomes = fcm.isEmpty ? [] : send(fcm.map(\.message), app: app)
        async let webOutcomes = web.isEmpty ? [] : send(web.map(\.message), app: app)
        var outcomes = [PushOutcome?](repeating: nil, count: pushes.count)
        for (index, outcome) in zip(apns.map(\.index), await apnsOutcomes) { outcomes[index] = outcome }
        for (index, outcome) in zip(fcm.map(\.index), await fcmOutcomes) { outcomes[index] = outcome }
        for (index, outcome) in zip(web.map(\.index), await webOutcomes) { outcomes[index] = outcome }
        // Each service answers once per push it was given.
        return outcomes.map { $0! }
    }
}
