import HeraldCore
import HeraldStorage
import Hummingbird

/// `/v1/apps/{app}/devices/{device}`: register, read and delete devices.
struct DeviceRoutes {
    let services: APIServices

    func register(on router: Router<HeraldRequestContext>) {
        router.put("/v1/apps/:app/devices/:device") { request, context in
            let appID = try context.parameters.identifier("app")
            let id = try context.parameters.identifier("device")
            let body = try await services.body.decode(DeviceBody.self, from: request)
            let app = try await services.existingApp(appID)
            let stored = try await services.store.device(appID: appID, id: id)
            let device = try body.device(app: app, id: id, stored: stored)
            let result = try await services.store.saveDevice(device, now: services.clock.now())
            await services.engine.arm(result.rearmed)
            return try Response.json(DeviceResource(device), status: result.created ? .created : .ok)
        }
        router.get("/v1/apps/:app/devices/:device") { _, context in
            let device = try await services.existingDevice(app: try context.parameters.decoded("app"),
                                                           id: try context.parameters.decoded("device"))
            return try Response.json(DeviceResource(device))
        }
        router.delete("/v1/apps/:app/devices/:device") { _, context in
            let appID = try context.parameters.decoded("app")
            let id = try context.parameters.decoded("device")
            _ = try await services.existingApp(appID)
            guard BroadcastChannel.name(audienceID: id) == nil, try await services.store.deleteDevice(appID: appID, id: id) else {
                throw HeraldError.deviceNotFound(appID: appID, deviceID: id)
            }
            return Response(status: .noContent)
        }
    }
}
