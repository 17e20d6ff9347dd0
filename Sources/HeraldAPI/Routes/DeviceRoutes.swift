import HeraldCore
import Hummingbird

/// `/v1/apps/{app}/devices/{device}`: register, read and delete devices; `/v1/apps/{app}/devices`
/// lists them.
struct DeviceRoutes {
    let services: APIServices

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/v1/apps/:app/devices") { request, context in
            let pagination = try Pagination(request)
            let filter = try Self.filter(request)
            let app = try await services.directory.existingApp(try context.parameters.decoded("app"))
            let page = try await services.directory.devices(appID: app.id, filter: filter, after: pagination.after,
                                                        limit: pagination.limit)
            return try Response.listing(page.map(DeviceResource.init))
        }
        router.put("/v1/apps/:app/devices/:device") { request, context in
            let appID = try context.parameters.identifier("app")
            let id = try context.parameters.identifier("device")
            let body = try await services.body.decode(DeviceBody.self, from: request)
            let app = try await services.directory.existingApp(appID)
            let stored = try await services.directory.device(appID: appID, id: id)
            let device = try body.device(app: app, id: id, stored: stored)
            let created = try await services.directory.saveDevice(device)
            return try Response.json(DeviceResource(device), status: created ? .created : .ok)
        }
        router.get("/v1/apps/:app/devices/:device") { _, context in
            let device = try await services.directory.existingDevice(app: try context.parameters.decoded("app"),
                                                           id: try context.parameters.decoded("device"))
            return try Response.json(DeviceResource(device))
        }
        router.delete("/v1/apps/:app/devices/:device") { _, context in
            let appID = try context.parameters.decoded("app")
            let id = try context.parameters.decoded("device")
            _ = try await services.directory.existingApp(appID)
            guard BroadcastChannel.name(audienceID: id) == nil, try await services.directory.deleteDevice(appID: appID, id: id) else {
                throw HeraldError.deviceNotFound(appID: appID, deviceID: id)
            }
            return Response(status: .noContent)
        }
    }

    /// `?platform=` and `?state=` of a device listing: 400 `invalidPlatform` or `invalidState`
    /// for a value that is not one.
    private static func filter(_ request: Request) throws -> DeviceFilter {
        let query = request.uri.queryParameters
        var filter = DeviceFilter()
        if let text = query.get("platform") {
            guard let platform = Platform(rawValue: text) else {
                throw HeraldError.badRequest(.invalidPlatform, "platform must be one of \(Platform.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            filter.platform = platform
        }
        if let text = query.get("state") {
            guard let state = LifecycleState(rawValue: text) else {
                throw HeraldError.badRequest(.invalidState,
                                             "state must be one of \(LifecycleState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            filter.state = state
        }
        return filter
    }
}
