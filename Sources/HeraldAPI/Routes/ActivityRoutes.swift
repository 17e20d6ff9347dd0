import HeraldCore
import Hummingbird

/// `/v1/apps/{app}/devices/{device}/activities[/{activity}]`: the update tokens of a device's
/// running Live Activities, as the app reports them from `pushTokenUpdates`.
struct ActivityRoutes {
    let services: APIServices

    /// `PUT` body.
    struct Body: Decodable {
        var token: String?
        var attributesType: String?
    }

    func register(on router: Router<HeraldRequestContext>) {
        let base = "/v1/apps/:app/devices/:device/activities"
        router.put("\(base)/:activity") { request, context in
            let device = try await device(context)
            let activity = try context.parameters.identifier("activity")
            let body = try await services.body.decode(Body.self, from: request)
            guard device.platform == .ios else {
                throw HeraldError.invalid(.liveActivityNotForPlatform, "Live Activities run on iOS; this is a \(device.platform.rawValue) installation")
            }
            guard let text = body.token else { throw HeraldError.invalid(.missingField, "token is required") }
            let token = LiveActivityToken(token: try DeviceRules.token(text, field: "token"), attributesType: body.attributesType)
            if let type = body.attributesType, !Identifier.isValid(type) {
                throw HeraldError.invalid(.invalidAttributesType, "attributesType is an ActivityAttributes type name")
            }
            guard let created = try await services.directory.saveActivity(activity, token: token, of: device) else {
                throw HeraldError.deviceNotFound(appID: device.appID, deviceID: device.id)
            }
            return try Response.json(ActivityResource(activity: activity, token: token.token, attributesType: token.attributesType),
                                     status: created ? .created : .ok)
        }
        router.get(RouterPath(base)) { request, context in
            let pagination = try Pagination(request, defaultLimit: Pagination.maximumLimit)
            let device = try await device(context)
            return try Response.listing(pagination.page(of: ActivityResource.all(of: device), key: \.activity),
                                        legacyKey: "activities")
        }
        router.get("\(base)/:activity") { _, context in
            let device = try await device(context)
            let activity = try context.parameters.decoded("activity")
            guard let token = device.activities[activity] else { throw Self.notFound(activity) }
            return try Response.json(ActivityResource(activity: activity, token: token.token, attributesType: token.attributesType))
        }
        router.delete("\(base)/:activity") { _, context in
            let device = try await device(context)
            let activity = try context.parameters.decoded("activity")
            guard try await services.directory.forgetActivity(activity, of: device) else {
                throw Self.notFound(activity)
            }
            return Response(status: .noContent)
        }
    }

    static func notFound(_ activity: String) -> HeraldError {
        .notFound(.activityNotFound, "activity '\(activity)' is not registered on this device")
    }

    private func device(_ context: HeraldRequestContext) async throws -> Device {
        try await services.directory.existingDevice(app: try context.parameters.decoded("app"), id: try context.parameters.decoded("device"))
    }
}
