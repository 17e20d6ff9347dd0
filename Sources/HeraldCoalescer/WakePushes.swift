import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPush

/// Throttled pushes telling an asleep app that a backlog waits, for devices that declared
/// `remote-notification`: `content-available` through APNs for ios, a data-only message at
/// normal priority through FCM for android. Web installations get none: a browser must show
/// every push it takes (`userVisibleOnly`), so a silent wake is not a thing there.
public struct WakePushes: Sendable {
    /// What became of one wake push.
    public enum Outcome: Sendable {
        case sent
        /// The device had its `perHour` already.
        case throttled
        /// Not sent: the throttle could not be read or written, or the push could not be built.
        case notSent
    }

    let coalescer: Coalescer
    let gateway: PushGateway
    /// At most this many an hour per device; 0 sends none.
    let perHour: Int

    public init(coalescer: Coalescer, gateway: PushGateway, perHour: Int) {
        self.coalescer = coalescer
        self.gateway = gateway
        self.perHour = perHour
    }

    /// Whether `device` of `app` takes wake pushes at all.
    public func reach(_ device: Device, of app: App) -> Bool {
        perHour > 0 && device.backgroundModes.contains("remote-notification") && device.platform != .web
            && app.pushes(to: device.platform) && device.pushAddress != nil
    }

    /// Sends one unless the device had `perHour` in the hour before `now`.
    public func send(to device: Device, of app: App, now: Date) async -> Outcome {
        guard reach(device, of: app), let address = device.pushAddress else { return .notSent }
        guard let allowed = try? await coalescer.recordWakePush(appID: app.id, deviceID: device.id, now: now, perHour: perHour)
        else { return .notSent }
        guard allowed else { return .throttled }
        let push: PlatformPush?
        switch device.platform {
        case .ios:
            push = (try? APNsPush(token: address, type: .background, bundleID: app.id, aps: APS(contentAvailable: 1)))
                .map(PlatformPush.apns)
        case .android, .web:
            push = (try? ChannelPush(type: .background, aps: APS(contentAvailable: 1), custom: ["herald_wake": .string("1")]))
                .flatMap { try? PlatformPush.channel($0, to: device, now: now) }
        }
        guard let push else { return .notSent }
        _ = await gateway.send([push], app: app)
        return .sent
    }
}
