import Foundation
import HeraldCoalescer
import HeraldCore
import HeraldPush
import HeraldScheduler
import HeraldStorage

/// What the status page, `GET /v1/status…` and `herald status` show: read from the store, the
/// push engine's last hour and the scheduler's lateness buckets. Reading changes nothing.
struct StatusReports: Sendable {
    let store: any DeviceStore & StatusStore & OutboxStore
    /// The backlog a wake would hand over, as the coalescer previews it.
    let coalescer: Coalescer
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
        struct ChannelLine: Encodable {
            var name: String
            var apnsChannelId: String
            var messageStoragePolicy: Int
            /// The next scheduled broadcasts: "event at instant", soonest first.
            var nextBroadcasts: [String]
        }
        var app: String
        var pushesLastHour: [String: Int]
        var devices: [DeviceLine]
        var channels: [ChannelLine]
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
        struct ActivityLine: Encodable {
            var activity: String
            var attributesType: String?
            /// The token's first characters, enough to tell tokens apart.
            var token: String
            /// The activity's next scheduled events: "event at instant", soonest first.
            var nextEvents: [String]
        }
        var app: String
        var device: String
        var platform: String
        var state: String
        var timeZone: String
        /// ActivityAttributes types a Live Activity can be started for.
        var pushToStartTypes: [String]
        var activities: [ActivityLine]
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
        var channels: [AppReport.ChannelLine] = []
        for channel in try await store.channels(appID: appID).prefix(Self.deviceLimit) {
            let scheduled = try await store.notifications(appID: appID, deviceID: BroadcastChannel.audienceID(name: channel.name))
            channels.append(.init(name: channel.name, apnsChannelId: channel.apnsChannelID,
                                  messageStoragePolicy: channel.messageStoragePolicy,
                                  nextBroadcasts: Self.nextEvents(scheduled.prefix(Self.upcomingOccurrences))))
        }
        return AppReport(app: appID, pushesLastHour: Self.named(gateway.activity.totals(app: appID)),
                         devices: devices.map {
                             AppReport.DeviceLine(device: $0.device.id, platform: $0.device.platform.rawValue,
                                                  state: $0.device.state.rawValue,
                                                  timeZone: $0.device.timeZone, pending: $0.pendingNotifications,
                                                  inbox: $0.inbox, backlog: $0.eventBacklog)
                         }, channels: channels)
    }

    func device(app appID: String, device deviceID: String) async throws -> DeviceReport {
        guard let app = try await store.app(id: appID) else { throw HeraldError.appNotFound(appID) }
        guard let device = try await store.device(appID: appID, id: deviceID) else {
            throw HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        }
        let zone = try DeviceRules.timeZone(device.timeZone)
        let scheduled = try await store.notifications(appID: appID, deviceID: deviceID)
        let activities = device.activities.keys.sorted().map { id in
            DeviceReport.ActivityLine(activity: id, attributesType: device.activities[id]?.attributesType,
                                      token: DeviceRules.redacted(token: device.activities[id]?.token ?? ""),
                                      nextEvents: Self.nextEvents(scheduled.filter { $0.content.liveActivity?.activity == id }
                                          .prefix(Self.upcomingOccurrences)))
        }
        let pending = scheduled.map { notification in
            DeviceReport.PendingLine(
                id: notification.id,
                title: notification.content.alert?.title ?? notification.content.liveActivity.map { "Live Activity \($0.event.rawValue)" },
                body: notification.content.alert?.body ?? notification.content.liveActivity.map { $0.activity ?? $0.attributesType ?? "" } ?? "",
                nextOccurrences: notification.recurrence(deviceTimeZone: zone)
                    .occurrences(startingAt: notification.nextIndex, limit: Self.upcomingOccurrences)
                    .map { RFC3339.string(from: $0.date) })
        }
        let deliveries = try await store.deliveries(appID: appID, deviceID: deviceID, limit: Self.deliveryLimit)
        let inbox = try await store.inboxEntries(appID: appID, deviceID: deviceID, limit: Self.inboxLimit)
        let backlog = try await coalescer.backlog(app: app, deviceID: deviceID)
        return DeviceReport(app: appID, device: deviceID, platform: device.platform.rawValue, state: device.state.rawValue,
                            timeZone: device.timeZone, pushToStartTypes: device.pushToStartTokens.keys.sorted(),
                            activities: activities,
                            pending: pending, deliveries: deliveries.map(DeliveryResource.init),
                            inbox: inbox.map { .init(seq: $0.sequence, notificationId: $0.notificationID,
                                                     firedAt: RFC3339.string(from: $0.firedAt)) },
                            backlog: backlog.map(CoalescedResource.init))
    }

    /// "update at 2027-03-28T01:00:00Z" for each notification, soonest first.
    private static func nextEvents(_ notifications: some Sequence<LocalNotification>) -> [String] {
        notifications.sorted { $0.nextFireDate < $1.nextFireDate }.map { notification in
            "\(notification.content.liveActivity?.event.rawValue ?? "alert") at \(RFC3339.string(from: notification.nextFireDate))"
        }
    }

    private static func named(_ counts: [PushOutcome.Result: Int]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })
    }
}
