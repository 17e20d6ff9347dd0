import HeraldCore
import HeraldDirectory

/// The audience a route's path names (``Audience``, HeraldDirectory): a device under
/// `/devices/{device}`, a broadcast channel's audience under `/channels/{name}`.
extension Audience {
    /// The app and the stored device id the route's path names.
    func address(_ context: HeraldRequestContext) throws -> (appID: String, deviceID: String) {
        let app = try context.parameters.decoded("app")
        switch self {
        case .device: return (app, try context.parameters.decoded("device"))
        case .channel: return (app, BroadcastChannel.audienceID(name: try context.parameters.decoded("name")))
        }
    }

    /// The audience the route's path names, with its app checked first.
    ///
    /// - Throws: `appNotFound`, `deviceNotFound` or `channelNotFound`.
    func existing(in services: APIServices, _ context: HeraldRequestContext) async throws -> Device {
        let (appID, deviceID) = try address(context)
        return try await services.directory.existing(self, appID: appID, deviceID: deviceID)
    }
}
