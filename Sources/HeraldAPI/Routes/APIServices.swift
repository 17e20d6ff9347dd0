import Foundation
import HeraldCore
import HeraldScheduler
import HeraldStorage
import Hummingbird

/// What every route needs: the store, the engine, the clock and the body reader.
struct APIServices: Sendable {
    var store: any DeviceStore & ListingStore
    var engine: SchedulerEngine
    /// The schedule use case, arming `engine`.
    var scheduling: Scheduling
    var clock: any SchedulerClock
    var body: JSONBody

    /// Creates or updates a device; a changed time zone re-times its floating notifications,
    /// whose new timer entries are armed here.
    func saveDevice(_ device: Device) async throws -> DeviceSaveResult {
        let result = try await store.saveDevice(device, now: clock.now())
        await engine.arm(result.rearmed)
        return result
    }

    func existingApp(_ id: String) async throws -> App {
        guard let app = try await store.app(id: id) else { throw HeraldError.appNotFound(id) }
        return app
    }

    /// A device registered through the API; a broadcast channel's audience is not one.
    func existingDevice(app: String, id: String) async throws -> Device {
        try await existing(.device, appID: app, deviceID: id)
    }

    /// The audience that holds a broadcast channel's scheduled broadcasts.
    func existingChannel(app: String, name: String) async throws -> Device {
        try await existing(.channel, appID: app, deviceID: BroadcastChannel.audienceID(name: name))
    }

    /// The stored device `deviceID` of app `app`, if it is this kind of audience.
    ///
    /// - Throws: `appNotFound`; `deviceNotFound` or `channelNotFound` (``Audience/notFound(appID:deviceID:)``).
    func existing(_ audience: Audience, appID: String, deviceID: String) async throws -> Device {
        _ = try await existingApp(appID)
        guard let device = try await store.device(appID: appID, id: deviceID) else {
            throw audience.notFound(appID: appID, deviceID: deviceID)
        }
        try audience.check(device)
        return device
    }
}

extension Parameters {
    /// A path parameter, percent-decoded: what routes and the access check both compare, so
    /// `a%2Eapp` and `a.app` are the same app everywhere.
    func decoded(_ name: String) throws -> String {
        let raw = try require(name)
        guard let value = raw.removingPercentEncoding else {
            throw HeraldError.badRequest(.invalidPath, "path parameter \(name) is not valid percent-encoding")
        }
        return value
    }

    /// A path identifier, decoded and checked against the identifier rules.
    ///
    /// Never inlined: Swift 6.3.1's release build crashes (LLVM CoroSplit, signal 11) when this
    /// typed-throws check is inlined into some route closures (`GET /v1/apps/{app}`).
    @inline(never)
    func identifier(_ name: String) throws -> String {
        let value = try decoded(name)
        try Identifier.validate(value, field: name)
        return value
    }
}

extension Request {
    /// A header by name, case-insensitively; for names `HTTPField.Name` has no constant for.
    func header(_ name: String) -> String? {
        headers.first { $0.name.canonicalName == name.lowercased() }?.value
    }
}
