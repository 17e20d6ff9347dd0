import Foundation

extension HeraldClient {
    /// Creates an iOS 18 broadcast channel on APNs, kept by the app's name for it
    /// (`POST /v1/apps/{app}/channels`).
    ///
    /// Not retried: a resend would find the name taken (409 `channelExists`).
    ///
    /// - parameter app: The bundle id (with APNs token auth).
    /// - parameter name: The app's name for the channel.
    /// - parameter messageStoragePolicy: 0: APNs stores no broadcast for offline devices; 1: the most recent.
    /// - returns: The channel, with the id APNs assigned.
    /// - throws: ``HeraldError``: 409 `channelExists`, 422 `pushNotConfigured`, `liveActivityNeedsTokenAuth`,
    ///   502 `apnsRefused`, `apnsUnreachable`.
    @discardableResult
    public func createChannel(app: String, name: String, messageStoragePolicy: Int? = nil) async throws -> BroadcastChannel {
        struct Body: Encodable { var name: String; var messageStoragePolicy: Int? }
        return try await send("POST", Self.appPath(app) + "/channels", body: Body(name: name, messageStoragePolicy: messageStoragePolicy),
                              as: BroadcastChannel.self)
    }

    /// Reads a channel; with `refresh`, asks APNs whether it still knows it.
    ///
    /// - parameter app: The bundle id.
    /// - parameter name: The channel's name.
    /// - parameter refresh: Ask APNs too (fills ``BroadcastChannel/onApns``).
    /// - returns: The channel.
    /// - throws: ``HeraldError``: 404 `channelNotFound`.
    public func channel(app: String, name: String, refresh: Bool = false) async throws -> BroadcastChannel {
        try await get(Self.channelPath(app, name), query: refresh ? [URLQueryItem(name: "refresh", value: "true")] : [],
                      as: BroadcastChannel.self)
    }

    /// One page of an app's channels (`GET /v1/apps/{app}/channels`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter refresh: Ask APNs which it still knows.
    /// - parameter limit: The most answered; nil: the server's default.
    /// - parameter cursor: The previous page's ``Page/nextCursor``; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``: 404 `appNotFound`.
    public func channels(app: String, refresh: Bool = false, limit: Int? = nil,
                         cursor: String? = nil) async throws -> Page<BroadcastChannel> {
        try await page(Self.appPath(app) + "/channels", legacyKey: "channels", limit: limit, cursor: cursor,
                       query: refresh ? [URLQueryItem(name: "refresh", value: "true")] : [])
    }

    /// Every channel of an app, page after page.
    ///
    /// - parameter app: The bundle id.
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the channels; iterating it throws ``HeraldError``.
    public func allChannels(app: String, pageSize: Int? = nil) -> PageSequence<BroadcastChannel> {
        PageSequence(pageSize: pageSize) { limit, cursor in try await self.channels(app: app, limit: limit, cursor: cursor) }
    }

    /// Deletes a channel on APNs, then here with its scheduled broadcasts.
    ///
    /// - parameter app: The bundle id.
    /// - parameter name: The channel's name.
    /// - throws: ``HeraldError``: 404 `channelNotFound`, 502 `apnsRefused`.
    public func deleteChannel(app: String, name: String) async throws {
        try await send("DELETE", Self.channelPath(app, name))
    }

    /// Schedules a broadcast on a channel: a Live Activity update or end at a time
    /// (`POST .../channels/{name}/notifications`), with an `Idempotency-Key` as
    /// ``schedule(app:device:_:idempotencyKey:)``.
    ///
    /// - parameter app: The bundle id.
    /// - parameter channel: The channel's name.
    /// - parameter request: When, and the ``NotificationRequest/liveActivity`` (update or end, no activity).
    /// - parameter idempotencyKey: The key identifying this call; nil: a new UUID.
    /// - returns: The stored broadcast.
    /// - throws: ``HeraldError``: 404 `channelNotFound`, 422 `missingLiveActivity`, `invalidLiveActivity`.
    @discardableResult
    public func scheduleBroadcast(app: String, channel: String, _ request: NotificationRequest,
                                  idempotencyKey: String? = nil) async throws -> ScheduleResult {
        try await schedule(request, under: Self.channelPath(app, channel), idempotencyKey: idempotencyKey)
    }

    /// One page of a channel's scheduled broadcasts, soonest first.
    ///
    /// - parameter app: The bundle id.
    /// - parameter channel: The channel's name.
    /// - parameter limit: The most answered; nil: the server's default.
    /// - parameter cursor: The previous page's ``Page/nextCursor``; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``: 404 `channelNotFound`.
    public func channelNotifications(app: String, channel: String, limit: Int? = nil,
                                     cursor: String? = nil) async throws -> Page<LocalNotification> {
        try await page(Self.channelPath(app, channel) + "/notifications", legacyKey: "notifications", limit: limit, cursor: cursor)
    }

    /// Every scheduled broadcast of a channel, page after page.
    ///
    /// - parameter app: The bundle id.
    /// - parameter channel: The channel's name.
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the broadcasts; iterating it throws ``HeraldError``.
    public func allChannelNotifications(app: String, channel: String, pageSize: Int? = nil) -> PageSequence<LocalNotification> {
        PageSequence(pageSize: pageSize) { limit, cursor in
            try await self.channelNotifications(app: app, channel: channel, limit: limit, cursor: cursor)
        }
    }

    /// Reads one scheduled broadcast, with a preview of its next occurrences.
    ///
    /// - parameter app: The bundle id.
    /// - parameter channel: The channel's name.
    /// - parameter id: The broadcast's id.
    /// - parameter occurrences: How many next fire dates to preview (0–100).
    /// - returns: The broadcast.
    /// - throws: ``HeraldError``: 404 `notificationNotFound`.
    public func channelNotification(app: String, channel: String, id: String,
                                    occurrences: Int = 0) async throws -> LocalNotification {
        try await notification(id, under: Self.channelPath(app, channel), occurrences: occurrences)
    }

    /// Cancels one scheduled broadcast.
    ///
    /// - parameter app: The bundle id.
    /// - parameter channel: The channel's name.
    /// - parameter id: The broadcast's id.
    /// - throws: ``HeraldError``: 404 `notificationNotFound`.
    public func cancelChannelNotification(app: String, channel: String, id: String) async throws {
        try await send("DELETE", Self.channelPath(app, channel) + "/notifications/" + segment(id))
    }

    /// Cancels every scheduled broadcast of a channel.
    ///
    /// - parameter app: The bundle id.
    /// - parameter channel: The channel's name.
    /// - returns: How many were cancelled.
    /// - throws: ``HeraldError``: 404 `channelNotFound`.
    @discardableResult
    public func cancelAllChannelNotifications(app: String, channel: String) async throws -> Int {
        try await cancelAll(under: Self.channelPath(app, channel))
    }

    /// One page of a channel's deliveries (its broadcasts sent), newest first.
    ///
    /// - parameter app: The bundle id.
    /// - parameter channel: The channel's name.
    /// - parameter limit: The most answered (1–1000); nil: the server's default.
    /// - parameter cursor: The previous page's ``Page/nextCursor``; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``: 404 `channelNotFound`.
    public func channelDeliveries(app: String, channel: String, limit: Int? = nil,
                                  cursor: String? = nil) async throws -> Page<Delivery> {
        try await page(Self.channelPath(app, channel) + "/deliveries", legacyKey: "deliveries", limit: limit, cursor: cursor)
    }

    /// Every delivery of a channel, page after page.
    ///
    /// - parameter app: The bundle id.
    /// - parameter channel: The channel's name.
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the deliveries; iterating it throws ``HeraldError``.
    public func allChannelDeliveries(app: String, channel: String, pageSize: Int? = nil) -> PageSequence<Delivery> {
        PageSequence(pageSize: pageSize) { limit, cursor in
            try await self.channelDeliveries(app: app, channel: channel, limit: limit, cursor: cursor)
        }
    }
}
