import Foundation

extension HeraldClient {
    /// Registers a device, or replaces its registration (`PUT /v1/apps/{app}/devices/{device}`);
    /// its lifecycle state and Live Activities are kept.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id, chosen by the app.
    /// - parameter registration: Its time zone, platform and push address.
    /// - returns: The device as stored, and whether it was created.
    /// - throws: ``HeraldError``: 404 `appNotFound`, 422 (`missingField`, `invalidToken`, `addressNotForPlatform`...).
    ///
    /// ```swift
    /// try await client.putDevice(app: "com.example.alarm", device: "phone-1",
    ///                            DeviceRegistration(timeZone: "Europe/Paris", token: apnsToken,
    ///                                               backgroundModes: [.remoteNotification]))
    /// ```
    @discardableResult
    public func putDevice(app: String, device: String, _ registration: DeviceRegistration) async throws -> Saved<Device> {
        try await save(Self.devicePath(app, device), body: registration, as: Device.self)
    }

    /// Reads a device (`GET /v1/apps/{app}/devices/{device}`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - returns: The device.
    /// - throws: ``HeraldError``: 404 `appNotFound` or `deviceNotFound`.
    public func device(app: String, device: String) async throws -> Device {
        try await get(Self.devicePath(app, device), as: Device.self)
    }

    /// Deletes a device with its notifications (`DELETE /v1/apps/{app}/devices/{device}`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - throws: ``HeraldError``: 404 `appNotFound` or `deviceNotFound`.
    public func deleteDevice(app: String, device: String) async throws {
        try await send("DELETE", Self.devicePath(app, device))
        forgetHandOvers(app: app, device: device)
    }

    /// One page of an app's devices (`GET /v1/apps/{app}/devices`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter platform: Only devices of this platform; nil: all.
    /// - parameter state: Only devices in this lifecycle state; nil: all.
    /// - parameter limit: The most devices answered; nil: the server's default.
    /// - parameter cursor: The previous page's ``Page/nextCursor``; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``: 404 `appNotFound`.
    public func devices(app: String, platform: Platform? = nil, state: LifecycleState? = nil, limit: Int? = nil,
                        cursor: String? = nil) async throws -> Page<Device> {
        var query: [URLQueryItem] = []
        if let platform { query.append(URLQueryItem(name: "platform", value: platform.rawValue)) }
        if let state { query.append(URLQueryItem(name: "state", value: state.rawValue)) }
        return try await page(Self.appPath(app) + "/devices", legacyKey: "devices", limit: limit, cursor: cursor, query: query)
    }

    /// Every device of an app, page after page.
    ///
    /// - parameter app: The bundle id.
    /// - parameter platform: Only devices of this platform; nil: all.
    /// - parameter state: Only devices in this lifecycle state; nil: all.
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the devices; iterating it throws ``HeraldError``.
    ///
    /// ```swift
    /// for try await device in client.allDevices(app: "com.example.alarm", platform: .ios) { print(device.id) }
    /// ```
    public func allDevices(app: String, platform: Platform? = nil, state: LifecycleState? = nil,
                           pageSize: Int? = nil) -> PageSequence<Device> {
        PageSequence(pageSize: pageSize) { limit, cursor in
            try await self.devices(app: app, platform: platform, state: state, limit: limit, cursor: cursor)
        }
    }

    // MARK: Live Activities

    /// Registers a running Live Activity's update token
    /// (`PUT /v1/apps/{app}/devices/{device}/activities/{activity}`), as the app reports it
    /// from `pushTokenUpdates`.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id (an ios installation).
    /// - parameter activity: The activity's id, chosen by the app.
    /// - parameter token: The update token, hex.
    /// - parameter attributesType: Its ActivityAttributes type name.
    /// - returns: The registration, and whether the activity was new.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`, 422 `liveActivityNotForPlatform`, `invalidToken`.
    @discardableResult
    public func putActivity(app: String, device: String, activity: String, token: String,
                            attributesType: String? = nil) async throws -> Saved<ActivityRegistration> {
        struct Body: Encodable { var token: String; var attributesType: String? }
        return try await save(Self.devicePath(app, device) + "/activities/" + segment(activity),
                              body: Body(token: token, attributesType: attributesType), as: ActivityRegistration.self)
    }

    /// Reads one registered Live Activity.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter activity: The activity's id.
    /// - returns: The registration, and whether the activity was new.
    /// - throws: ``HeraldError``: 404 `activityNotFound`.
    public func activity(app: String, device: String, activity: String) async throws -> ActivityRegistration {
        try await get(Self.devicePath(app, device) + "/activities/" + segment(activity), as: ActivityRegistration.self)
    }

    /// One page of a device's registered Live Activities.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter limit: The most answered; nil: the server's default.
    /// - parameter cursor: The previous page's ``Page/nextCursor``; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`.
    public func activities(app: String, device: String, limit: Int? = nil,
                           cursor: String? = nil) async throws -> Page<ActivityRegistration> {
        try await page(Self.devicePath(app, device) + "/activities", legacyKey: "activities", limit: limit, cursor: cursor)
    }

    /// Every registered Live Activity of a device, page after page.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the registrations; iterating it throws ``HeraldError``.
    public func allActivities(app: String, device: String, pageSize: Int? = nil) -> PageSequence<ActivityRegistration> {
        PageSequence(pageSize: pageSize) { limit, cursor in
            try await self.activities(app: app, device: device, limit: limit, cursor: cursor)
        }
    }

    /// Forgets a Live Activity's token (`DELETE .../activities/{activity}`): the activity ended.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter activity: The activity's id.
    /// - throws: ``HeraldError``: 404 `activityNotFound`.
    public func forgetActivity(app: String, device: String, activity: String) async throws {
        try await send("DELETE", Self.devicePath(app, device) + "/activities/" + segment(activity))
    }
}
