import Foundation
import HeraldCore
import HeraldDelivery
import HeraldScheduler
import HeraldStorage

/// Who can be reached: apps, their devices and broadcast channels' audiences, and the devices'
/// Live Activity tokens. Routes and the CLI's server side read and change them here, never in
/// a store: saving a device re-arms the timers its new time zone moved, and an audience is
/// looked up under the rules that keep devices and channels apart (``Audience``).
///
/// ```swift
/// let directory = Directory(store: store, engine: engine, clock: SystemClock())
/// let device = try await directory.existingDevice(app: "com.example.app", id: "phone")
/// ```
public struct Directory: Sendable {
    private let store: any DeviceStore & ListingStore
    private let engine: SchedulerEngine
    /// Stamps what is saved.
    public let clock: any SchedulerClock

    public init(store: any DeviceStore & ListingStore, engine: SchedulerEngine, clock: any SchedulerClock) {
        self.store = store
        self.engine = engine
        self.clock = clock
    }

    // MARK: Apps

    /// Apps with an id after `after` (all when nil), at most `limit`, in id order.
    public func apps(after: String?, limit: Int) async throws -> ListPage<App> {
        try await store.apps(after: after, limit: limit)
    }

    public func app(id: String) async throws -> App? {
        try await store.app(id: id)
    }

    /// - Throws: `appNotFound`.
    public func existingApp(_ id: String) async throws -> App {
        guard let app = try await store.app(id: id) else { throw HeraldError.appNotFound(id) }
        return app
    }

    /// Creates or updates an app. Returns true when it was created.
    public func saveApp(_ app: App) async throws -> Bool {
        try await store.saveApp(app)
    }

    /// Deletes an app with its devices and their notifications. Returns false if it did not exist.
    public func deleteApp(id: String) async throws -> Bool {
        try await store.deleteApp(id: id)
    }

    // MARK: Devices and audiences

    /// One app's devices with an id after `after` that pass `filter`, at most `limit`.
    public func devices(appID: String, filter: DeviceFilter, after: String?, limit: Int) async throws -> ListPage<Device> {
        try await store.devices(appID: appID, filter: filter, after: after, limit: limit)
    }

    /// The stored device, a channel's audience included; nil when there is none.
    public func device(appID: String, id: String) async throws -> Device? {
        try await store.device(appID: appID, id: id)
    }

    /// A device registered through the API; a broadcast channel's audience is not one.
    ///
    /// - Throws: `appNotFound`, `deviceNotFound`.
    public func existingDevice(app: String, id: String) async throws -> Device {
        try await existing(.device, appID: app, deviceID: id)
    }

    /// The audience that holds a broadcast channel's scheduled broadcasts.
    ///
    /// - Throws: `appNotFound`, `channelNotFound`.
    public func existingChannel(app: String, name: String) async throws -> Device {
        try await existing(.channel, appID: app, deviceID: BroadcastChannel.audienceID(name: name))
    }

    /// The stored device `deviceID` of app `appID`, if it is this kind of audience.
    ///
    /// - Throws: `appNotFound`; `deviceNotFound` or `channelNotFound` (``Audience/notFound(appID:deviceID:)``).
    public func existing(_ audience: Audience, appID: String, deviceID: String) async throws -> Device {
        _ = try await existingApp(appID)
        guard let device = try await store.device(appID: appID, id: deviceID) else {
            throw audience.notFound(appID: appID, deviceID: deviceID)
        }
        try audience.check(device)
        return device
    }

    /// Creates or updates a device; a changed time zone re-times its floating notifications,
    /// whose new timer entries are armed here. Returns true when it was created.
    @discardableResult
    public func saveDevice(_ device: Device) async throws -> Bool {
        let result = try await store.saveDevice(device, now: clock.now())
        await engine.arm(result.rearmed)
        return result.created
    }

    /// Deletes a device (or a channel's audience) with its notifications. Returns false if it did not exist.
    public func deleteDevice(appID: String, id: String) async throws -> Bool {
        try await store.deleteDevice(appID: appID, id: id)
    }

    // MARK: Live Activities

    /// Registers (or replaces) a running Live Activity's update token. Returns true when the
    /// activity was new, false when replaced, nil when there is no device.
    public func saveActivity(_ activity: String, token: LiveActivityToken, of device: Device) async throws -> Bool? {
        try await store.saveActivity(appID: device.appID, deviceID: device.id, activity: activity, token: token,
                                     now: clock.now())
    }

    /// Forgets an activity's token. Returns false when the device or activity was unknown.
    public func forgetActivity(_ activity: String, of device: Device) async throws -> Bool {
        try await store.forgetActivity(appID: device.appID, deviceID: device.id, activity: activity)
    }

    // MARK: Broadcast channels

    /// The app's broadcast channels, by name.
    public func channels(appID: String) async throws -> [BroadcastChannel] {
        try await store.channels(appID: appID)
    }

    /// Stores a new broadcast channel as its audience. Returns false, changing nothing, when the
    /// app already has a channel of that name.
    public func createChannel(_ channel: BroadcastChannel, appID: String) async throws -> Bool {
        try await store.createChannel(channel, appID: appID, now: clock.now())
    }
}

/// A push sent now finds its devices and channels' audiences here.
extension Directory: PushAudiences {}
