import HeraldCore

/// Whose notifications a request manages: a device registered through the API, or a broadcast
/// channel's audience (stored as a device, ``BroadcastChannel/audienceID(name:)``). The rules
/// that keep the two apart live here.
public enum Audience: Sendable {
    case device
    case channel

    /// Refuses a stored device that is not this kind of audience, as if it did not exist.
    public func check(_ device: Device) throws {
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
    public func notFound(appID: String, deviceID: String) -> HeraldError {
        switch self {
        case .device:
            return HeraldError.deviceNotFound(appID: appID, deviceID: deviceID)
        case .channel:
            let name = BroadcastChannel.name(audienceID: deviceID) ?? deviceID
            return HeraldError.notFound(.channelNotFound, "channel '\(name)' of app '\(appID)' does not exist")
        }
    }

    /// Runs `body`, naming a missing audience as this kind of audience.
    public func translatingNotFound<T>(appID: String, deviceID: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as HeraldError where error.reason == .deviceNotFound {
            throw notFound(appID: appID, deviceID: deviceID)
        }
    }
}
