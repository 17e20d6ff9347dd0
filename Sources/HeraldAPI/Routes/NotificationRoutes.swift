import Foundation
import HeraldCore
import HeraldDirectory
import Hummingbird

/// `/v1/apps/{app}/devices/{device}/notifications`, `/present` and `/deliveries`; and the same
/// notifications and deliveries for a broadcast channel, under `/v1/apps/{app}/channels/{name}`.
struct NotificationRoutes {
    let services: APIServices
    /// Scheduling honours `Idempotency-Key`: a resend of the same schedule changes nothing.
    let idempotency: IdempotentRequests

    /// Most occurrences a preview may ask for.
    static let maximumPreview = 100

    func register(on router: Router<HeraldRequestContext>) {
        let base = "/v1/apps/:app/devices/:device"
        register(on: router, base: base, audience: .device)
        register(on: router, base: "/v1/apps/:app/channels/:name", audience: .channel)

        router.post("\(base)/present") { request, context in
            let device = try await Audience.device.existing(in: services, context)
            let body = try await services.body.decode(NotificationBody.self, from: request)
            let id = try body.notificationID()
            let content = try body.content(for: device.platform, notificationID: id)
            guard content.liveActivity == nil else {
                throw HeraldError.invalid(.invalidLiveActivity, "present shows an alert now; send a Live Activity with POST /v1/push")
            }
            let delivery = try await services.engine.present(content, notificationID: id, device: device)
            return try Response.json(["delivery": DeliveryResource(delivery)])
        }
    }

    /// The notification and delivery routes under `base`, for the audience it names: a device,
    /// or a broadcast channel's audience (whose notifications are its broadcasts).
    private func register(on router: Router<HeraldRequestContext>, base: String, audience: Audience) {
        @Sendable func device(_ context: HeraldRequestContext) async throws -> Device {
            try await audience.existing(in: services, context)
        }
        router.post("\(base)/notifications") { request, context in
            try await idempotency.run(request, context: context) { try await schedule($0, context: context, audience: audience) }
        }

        router.get("\(base)/notifications") { request, context in
            let pagination = try Pagination(request, defaultLimit: Pagination.maximumLimit)
            let device = try await device(context)
            let notifications = try await services.pending.all(of: device)
            // The store's order: by next fire date, ties in the order they were scheduled. The key
            // pads the instant (text order is time order) and then the place among its ties.
            var ties: [Int64: Int] = [:]
            let keyed = notifications.map { notification in
                let milliseconds = max(0, notification.nextFireDate.millisecondsSince1970)
                let place = ties[milliseconds, default: 0]
                ties[milliseconds] = place + 1
                return (key: String(format: "%016lld/%03d", milliseconds, place), notification: notification)
            }
            let page = pagination.page(of: keyed, key: \.key)
            return try Response.listing(page.map { NotificationResource($0.notification) }, legacyKey: "notifications")
        }

        router.get("\(base)/notifications/:id") { request, context in
            let device = try await device(context)
            let id = try context.parameters.decoded("id")
            let count = try Self.integer(request, "occurrences", default: 0, range: 0...Self.maximumPreview,
                                         reason: .invalidOccurrences)
            guard let notification = try await services.pending.notification(id, of: device) else {
                throw HeraldError.notFound(.notificationNotFound, "notification '\(id)' does not exist")
            }
            var preview: [Date]?
            if count > 0 {
                let zone = try DeviceRules.timeZone(device.timeZone)
                preview = notification.recurrence(deviceTimeZone: zone)
                    .occurrences(startingAt: notification.nextIndex, limit: count).map(\.date)
            }
            return try Response.json(NotificationResource(notification, occurrences: preview))
        }

        router.delete("\(base)/notifications/:id") { _, context in
            let device = try await device(context)
            let id = try context.parameters.decoded("id")
            guard try await services.pending.cancel(id, of: device) else {
                throw HeraldError.notFound(.notificationNotFound, "notification '\(id)' does not exist")
            }
            return Response(status: .noContent)
        }

        router.delete("\(base)/notifications") { _, context in
            let device = try await device(context)
            let count = try await services.pending.cancelAll(of: device)
            return try Response.json(["cancelled": count])
        }

        router.get("\(base)/deliveries") { request, context in
            let pagination = try Pagination(request, defaultLimit: 50)
            let device = try await device(context)
            let page = try await services.pending.deliveries(of: device, before: pagination.after, limit: pagination.limit)
            return try Response.listing(page.map(DeliveryResource.init), legacyKey: "deliveries")
        }
    }

    /// `POST .../notifications`: schedules (or replaces) one notification on the audience, through
    /// the schedule use case (``Scheduling``), which reads the device it is built for.
    private func schedule(_ request: Request, context: HeraldRequestContext, audience: Audience) async throws -> Response {
        let (appID, deviceID) = try audience.address(context)
        let body = try await services.body.decode(NotificationBody.self, from: request)
        let id = try body.notificationID()
        let now = services.clock.now()
        let scheduled = try await audience.translatingNotFound(appID: appID, deviceID: deviceID) {
            try await services.scheduling.schedule(appID: appID, deviceID: deviceID, now: now) { snapshot in
                let device = snapshot.device
                try audience.check(device)
                let deviceZone = try DeviceRules.timeZone(device.timeZone)
                let schedule = try body.schedule(deviceTimeZone: deviceZone)
                let content = device.broadcastChannel == nil
                    ? try body.content(for: device.platform, notificationID: id) : try body.broadcastContent(notificationID: id)
                if let liveActivity = content.liveActivity {
                    try liveActivity.checkReachable(on: device, push: snapshot.app.push)
                }
                let next = try schedule.firstOccurrence(after: now, deviceTimeZone: deviceZone)
                return LocalNotification(appID: device.appID, deviceID: device.id, id: id,
                                         fireDate: schedule.fireDate, timeZone: schedule.timeZone,
                                         repeatRule: schedule.repeatRule, content: content,
                                         nextIndex: next.index, nextFireDate: next.date)
            }
        }
        let result = scheduled.result
        let resource = ScheduledResource(notification: result.armed == nil ? nil : NotificationResource(scheduled.notification),
                                         stored: result.armed != nil, replaced: result.replaced,
                                         evicted: result.evicted)
        return try Response.json(resource, status: result.armed == nil ? .ok : .created)
    }

    private static func integer(_ request: Request, _ name: String, default value: Int, range: ClosedRange<Int>,
                                reason: Reason) throws -> Int {
        guard let text = request.uri.queryParameters.get(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw HeraldError.badRequest(reason, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
