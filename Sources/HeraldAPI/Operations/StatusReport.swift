import Foundation
import HeraldCore
import HeraldPush
import HeraldScheduler
import HeraldStorage

/// What the status page, `GET /v1/status…` and `herald status` show: read from the store, the
/// push engine's last hour and the scheduler's lateness buckets. Reading changes nothing.
struct StatusReports: Sendable {
    let store: any DeviceStore & StatusStore & OutboxStore
    /// Whole-store counts, shared with `/metrics` so open pages do not each recount them.
    let gauges: CachedRead<StoreGauges>
    let gateway: PushGateway
    let lateness: FiringLateness
    let clock: any SchedulerClock

    /// Devices listed on an app's page, recent deliveries and inbox items on a device's.
    static let deviceLimit = 500
    static let deliveryLimit = 20
    static let inboxLimit = 50
    static let upcomingOccurrences = 3

    /// Every app, the outbox, and the charts' data.
    struct Overview: Encodable {
        struct AppLine: Encodable {
            var app: String
            var devices: Int
            var pending: Int
            var invalidTokens: Int
            var pushesLastHour: [String: Int]
        }
        struct Minute: Encodable {
            var minute: String
            var counts: [String: Int]
            /// The same pushes by platform: ios, android, web.
            var platforms: [String: Int]
        }
        struct LatenessBucket: Encodable {
            /// Upper bound in seconds; nil for the last bucket (later than every bound).
            var le: Double?
            var count: Int
        }
        var apps: [AppLine]
        var pendingNotifications: Int
        var fireLogBacklog: Int
        var outbox: [String: Int]
        var pushesPerMinute: [Minute]
        var firingLateness: [LatenessBucket]
    }

    /// One app's devices.
    struct AppReport: Encodable {
        struct DeviceLine: Encodable {
            var device: String
            var platform: String
            var state: String
            var timeZone: String
            var pending: Int
            var inbox: Int
            var backlog: Int
        }
        var app: String
        var pushesLastHour: [String: Int]
        var devices: [DeviceLine]
    }

    /// One device: what waits for it and what reached it.
    struct DeviceReport: Encodable {
        struct PendingLine: Encodable {
            var id: String
            var title: String?
            var body: String
            var nextOccurrences: [String]
        }
        struct InboxLine: Encodable {
            var seq: Int64
            var notificationId: String
            var firedAt: String
        }
        var app: String
        var device: String
        var platform: String
        var state: String
        var timeZone: String
        var pending: [PendingLine]
        var deliveries: [DeliveryResource]
        var inbox: [InboxLine]
        var backlog: [CoalescedResource]
    }

    func overview() async throws -> Overview {
        // Push activity is recorded at wall-clock time, whatever clock the scheduler runs on.
        let apps = try await store.appStatuses()
        let gauges = try await self.gauges.value
        let lines = apps.map { app in
            Overview.AppLine(app: app.appID, devices: app.devices, pending: app.pendingNotifications,
                             invalidTokens: app.invalidTokens,
                             pushesLastHour: Self.named(gateway.activity.totals(app: app.appID)))
        }
        let minutes = gateway.activity.lastHour().map {
            Overview.Minute(minute: RFC3339.string(from: $0.start), counts: Self.named($0.counts),
                            platforms: Dictionary(uniqueKeysWithValues: $0.platforms.map { ($0.key.rawValue, $0.value) }))
        }
        let buckets = lateness.buckets
        let lateness = buckets.indices.map { index in
            Overview.LatenessBucket(le: index < FiringLateness.bounds.count ? FiringLateness.bounds[index] : nil,
                                    count: buckets[index])
        }
        return Overview(apps: lines, pendingNotifications: gauges.pendingNotifications, fireLogBacklog: gauges.fireLogBacklog,
                        outbox: ["pending": gauges.outboxPending, "parked": gauges.outboxParked],
                        pushesPerMinute: minutes, firingLateness: lateness)
    }

    func app(_ appID: String) async throws -> AppReport {
        let devices = try await store.deviceStatuses(appID: appID, limit: Self.deviceLimit)
        return AppReport(app: appID, pushesLastHour: Self.named(gateway.activity.totals(app: appID)),
                         devices: devices.map {
                             AppReport.DeviceLine(device: $0.device.id, platform: $0.device.platform.rawValue,
                                                  state: $0.device.state.rawValue,
                                                  timeZone: $0.device.timeZone, pending: $0.pendingNotifications,
                                                  inbox: $0.inbox, backlog: $0.eventBacklog)
                         })
    }

    func device(app appID: String, device deviceID: String) async throws -> DeviceReport {
        guard let app = try await store.app(id: appID) else { throw HeraldError.appNotFound(appID) }
        guard let device = try await store.device(appID: appID, id: deviceID) else {
            throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        }
        let zone = try DeviceRules.timeZone(device.timeZone)
        let pending = try await store.notifications(appID: appID, deviceID: deviceID).map { notification in
            DeviceReport.PendingLine(
                id: notification.id, title: notification.content.alert.title, body: notification.content.alert.body,
                nextOccurrences: notification.recurrence(deviceTimeZone: zone)
                    .occurrences(startingAt: notification.nextIndex, limit: Self.upcomingOccurrences)
                    .map { RFC3339.string(from: $0.date) })
        }
        let deliveries = try await store.deliveries(appID: appID, deviceID: deviceID, limit: Self.deliveryLimit)
        let inbox = try await store.inboxEntries(appID: appID, deviceID: deviceID, limit: Self.inboxLimit)
        let backlog = try await store.eventBacklog(appID: appID, deviceID: deviceID,
                                                   catalog: try EventCatalog(customKinds: app.customKinds))
        return DeviceReport(app: appID, device: deviceID, platform: device.platform.rawValue, state: device.state.rawValue,
                            timeZone: device.timeZone,
                            pending: pending, deliveries: deliveries.map(DeliveryResource.init),
                            inbox: inbox.map { .init(seq: $0.sequence, notificationId: $0.notificationID,
                                                     firedAt: RFC3339.string(from: $0.firedAt)) },
                            backlog: backlog.map(CoalescedResource.init))
    }

    private static func named(_ counts: [PushOutcome.Result: Int]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })
    }
}
