import HeraldCore

/// Whose notifications a route manages: a device registered through the API, or a broadcast
/// channel's audience (stored as a device, ``BroadcastChannel/audienceID(name:)``). The rules
/// that keep the two apart live here, for the routes that read a device and for the schedule use
/// case, which reads it itself.
enum Audience: Sendable {
    case device
    case channel

    /// The app and the stored device id the route's path names.
    func address(_ context: HeraldRequestContext) throws -> (appID: String, deviceID: String) {
        let app = try context.parameters.decoded("app")
        switch self {
        case .device: return (app, try context.parameters.decoded("device"))
        case .channel: return (app, BroadcastChannel.audienceID(name: try context.parameters.decoded("name")))
        }
    }

    /// Refuses a stored device that is not this kind of audience, as if it did not exist.
    func check(_ device: Device) throws {
        switch self {
        case .device:
            guard BroadcastChannel.name(audienceID: device.id) == nil else {
                throw HeraldError.deviceNotFound(appID: device.appID, deviceID: device.id)
            }
        case .channel:
            guard device.broadcastChannel != nil else { throw notFound(appID: device.appID, deviceID: device.id) }
        }
    }

    /// What a missing audience is called: `deviceNotFound`, or `channelNotFound` with the name.
    func notFound(appID: String, deviceID: String) -> HeraldError {
        switch self {
        case .device:
            return HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        case .channel:
            let name = BroadcastChannel.name(audienceID: deviceID) ?? deviceID
            return HeraldError.notFound(.channelNotFound, "channel '\(name)' of app '\(appID)' does not exist")
        }
    }

    /// Runs `body`, naming a missing audience as this kind of audience.
    func translatingNotFound<T>(appID: String, deviceID: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as HeraldError where error.reason == .deviceNotFound {
            throw notFound(appID: appID, deviceID: deviceID)
        }
    }

    /// The audience the route's path names, with its app checked first.
    ///
    /// - Throws: `appNotFound`, `deviceNotFound` or `channelNotFound`.
    func existing(in services: APIServices, _ context: HeraldRequestContext) async throws -> Device {
        let (appID, deviceID) = try address(context)
        return try await services.existing(self, appID: appID, deviceID: deviceID)
    }
}
