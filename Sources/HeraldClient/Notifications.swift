import Foundation

extension HeraldClient {
    /// Schedules a local notification for a device (`POST .../devices/{device}/notifications`).
    ///
    /// The request carries an `Idempotency-Key` (``idempotencyKey``, else a new UUID) that is
    /// the same on every retry, so a retried request schedules once.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter request: When and what.
    /// - parameter idempotencyKey: The key identifying this call; nil: a new UUID.
    /// - returns: The stored notification and what the overflow policy did;
    ///   ``ScheduleResult/replayed`` when the server had already handled this idempotency key.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`, 409 `notificationLimitReached` (overflow
    ///   `reject`), 409 `idempotencyKeyInProgress` (after retrying), 422 (`missingAlert`, `invalidFireDate`...).
    ///
    /// ```swift
    /// let result = try await client.schedule(app: "com.example.alarm", device: "phone-1",
    ///                                        NotificationRequest(id: "wake-up", fireDate: "2035-06-01T07:00",
    ///                                                            timeZone: "Europe/Paris", repeat: RepeatRule(unit: .day),
    ///                                                            alert: AlertContent(title: "Wake up", body: "It is 7")))
    /// print(result.notification?.nextFireDate as Any)
    /// ```
    @discardableResult
    public func schedule(app: String, device: String, _ request: NotificationRequest,
                         idempotencyKey: String? = nil) async throws -> ScheduleResult {
        try await schedule(request, under: Self.devicePath(app, device), idempotencyKey: idempotencyKey)
    }

    /// One page of a device's notifications, soonest first (`GET .../notifications`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter limit: The most answered; nil: the server's default.
    /// - parameter cursor: The previous page's ``Page/nextCursor``; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`.
    public func notifications(app: String, device: String, limit: Int? = nil,
                              cursor: String? = nil) async throws -> Page<LocalNotification> {
        try await page(Self.devicePath(app, device) + "/notifications", legacyKey: "notifications", limit: limit, cursor: cursor)
    }

    /// Every notification of a device, soonest first, page after page.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the notifications; iterating it throws ``HeraldError``.
    public func allNotifications(app: String, device: String, pageSize: Int? = nil) -> PageSequence<LocalNotification> {
        PageSequence(pageSize: pageSize) { limit, cursor in
            try await self.notifications(app: app, device: device, limit: limit, cursor: cursor)
        }
    }

    /// Reads one notification, with a preview of its next occurrences
    /// (`GET .../notifications/{id}?occurrences=N`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter id: The notification id.
    /// - parameter occurrences: How many next fire dates to preview (0–100); 0: none.
    /// - returns: The notification, with ``LocalNotification/occurrences`` when asked.
    /// - throws: ``HeraldError``: 404 `notificationNotFound`.
    public func notification(app: String, device: String, id: String, occurrences: Int = 0) async throws -> LocalNotification {
        try await notification(id, under: Self.devicePath(app, device), occurrences: occurrences)
    }

    /// Cancels one notification (`DELETE .../notifications/{id}`): it never fires once answered.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter id: The notification id.
    /// - throws: ``HeraldError``: 404 `notificationNotFound`.
    public func cancelNotification(app: String, device: String, id: String) async throws {
        try await send("DELETE", Self.devicePath(app, device) + "/notifications/" + segment(id))
    }

    /// Cancels every notification of a device (`DELETE .../notifications`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - returns: How many were cancelled.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`.
    @discardableResult
    public func cancelAllNotifications(app: String, device: String) async throws -> Int {
        try await cancelAll(under: Self.devicePath(app, device))
    }

    /// Shows an alert now (`POST .../present`), as `UNUserNotificationCenter` would with no trigger.
    ///
    /// Not retried: the server does not deduplicate it.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter request: The alert.
    /// - returns: How it was delivered.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`, 422 `missingAlert`.
    @discardableResult
    public func present(app: String, device: String, _ request: PresentRequest) async throws -> Delivery {
        struct Answer: Decodable { var delivery: Delivery }
        return try await send("POST", Self.devicePath(app, device) + "/present", body: request, as: Answer.self).delivery
    }

    /// One page of a device's deliveries, newest first (`GET .../deliveries`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter limit: The most answered (1–1000); nil: the server's default (50).
    /// - parameter cursor: The previous page's ``Page/nextCursor``; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`, 400 `invalidLimit`.
    public func deliveries(app: String, device: String, limit: Int? = nil, cursor: String? = nil) async throws -> Page<Delivery> {
        try await page(Self.devicePath(app, device) + "/deliveries", legacyKey: "deliveries", limit: limit, cursor: cursor)
    }

    /// Every delivery of a device, page after page.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the deliveries; iterating it throws ``HeraldError``.
    public func allDeliveries(app: String, device: String, pageSize: Int? = nil) -> PageSequence<Delivery> {
        PageSequence(pageSize: pageSize) { limit, cursor in
            try await self.deliveries(app: app, device: device, limit: limit, cursor: cursor)
        }
    }

    // MARK: Shared by devices and broadcast channels

    func schedule(_ request: NotificationRequest, under base: String, idempotencyKey: String?) async throws -> ScheduleResult {
        var (result, replayed) = try await transport.sendReplayable(
            .init(method: "POST", path: base + "/notifications", body: try Transport.encode(request),
                  idempotencyKey: Self.key(idempotencyKey)), as: ScheduleResult.self)
        result.replayed = replayed
        return result
    }

    func notification(_ id: String, under base: String, occurrences: Int) async throws -> LocalNotification {
        let query = occurrences > 0 ? [URLQueryItem(name: "occurrences", value: String(occurrences))] : []
        return try await get(base + "/notifications/" + segment(id), query: query, as: LocalNotification.self)
    }

    func cancelAll(under base: String) async throws -> Int {
        struct Answer: Decodable { var cancelled: Int }
        return try Transport.decode(Answer.self, from: try await send("DELETE", base + "/notifications").body).cancelled
    }
}
