import HeraldCore
import HeraldCrypto

/// `PUT /v1/apps/{app}/devices/{device}` body. A PUT replaces the registration; the lifecycle
/// state is kept. The address must fit the platform: `token` (and `voipToken`) for ios,
/// `fcmToken` for android, `webPush` (the browser's `PushSubscription.toJSON()`) for web.
struct DeviceBody: Decodable {
    var timeZone: String?
    var platform: String?
    var token: String?
    var voipToken: String?
    var fcmToken: String?
    var webPush: WebPushSubscription?
    var locale: String?
    var backgroundModes: [String]?
    /// iOS 17.2+: a push-to-start token per ActivityAttributes type.
    var pushToStartTokens: [String: String]?

    /// Validates the body into a device of `app`, keeping `state` and the registered activities
    /// from the stored one.
    func device(app: App, id: String, stored: Device?) throws(HeraldError) -> Device {
        let state = stored?.state ?? .notRunning
        guard let timeZone else { throw .invalid(.missingField, "timeZone is required (an IANA zone such as Europe/Paris)") }
        _ = try DeviceRules.timeZone(timeZone)
        guard let platform = Platform(rawValue: platform ?? Platform.ios.rawValue) else {
            throw .invalid(.invalidPlatform, "platform must be ios, android or web")
        }
        let given: [(field: String, platform: Platform, present: Bool)] = [
            ("token", .ios, token != nil), ("voipToken", .ios, voipToken != nil), ("fcmToken", .android, fcmToken != nil),
            ("webPush", .web, webPush != nil), ("pushToStartTokens", .ios, pushToStartTokens != nil),
        ]
        if let misfit = given.first(where: { $0.present && $0.platform != platform }) {
            throw .invalid(.addressNotForPlatform,
                           "\(misfit.field) is an address for \(misfit.platform.rawValue) installations, not \(platform.rawValue)")
        }
        return Device(appID: app.id, id: id, timeZone: timeZone,
                      token: try token.map { value throws(HeraldError) in try DeviceRules.token(value, field: "token") },
                      voipToken: try voipToken.map { value throws(HeraldError) in try DeviceRules.token(value, field: "voipToken") },
                      locale: try locale.map { value throws(HeraldError) in try DeviceRules.locale(value) },
                      state: state, backgroundModes: try DeviceRules.backgroundModes(backgroundModes ?? []),
                      platform: platform, fcmToken: try fcmToken.map { value throws(HeraldError) in try DeviceRules.fcmToken(value) },
                      webPush: try webPush.map { value throws(HeraldError) in try Self.checked(value, app: app) },
                      pushToStartTokens: try Self.checked(pushToStartTokens ?? [:]), activities: stored?.activities ?? [:])
    }

    /// Each key an attributes type name (identifier characters), each value a token.
    static func checked(_ tokens: [String: String]) throws(HeraldError) -> [String: String] {
        var checked: [String: String] = [:]
        for (type, token) in tokens {
            guard Identifier.isValid(type) else {
                throw .invalid(.invalidAttributesType, "pushToStartTokens keys are ActivityAttributes type names")
            }
            checked[type] = try DeviceRules.token(token, field: "pushToStartTokens.\(type)")
        }
        return checked
    }

    /// A subscription on one of the app's allowed push services, with a public key on the curve.
    static func checked(_ subscription: WebPushSubscription, app: App) throws(HeraldError) -> WebPushSubscription {
        let valid = try subscription.validated(allowedHosts: app.webPush?.hosts ?? .publicPushServices)
        guard let point = WebPushSubscription.decodeBase64URL(valid.keys.p256dh), (try? ES256Key(publicPoint: point)) != nil else {
            throw .invalid(.invalidWebPushKeys, "webPush.keys.p256dh is not a point on the P-256 curve")
        }
        return valid
    }
}

/// A device as the API shows it.
struct DeviceResource: Encodable {
    var app: String
    var id: String
    var timeZone: String
    var platform: String
    var token: String?
    var voipToken: String?
    var fcmToken: String?
    var webPush: WebPushSubscription?
    var locale: String?
    var state: String
    var backgroundModes: [String]
    var pushToStartTokens: [String: String]
    var activities: [ActivityResource]

    init(_ device: Device) {
        pushToStartTokens = device.pushToStartTokens
        activities = ActivityResource.all(of: device)
        app = device.appID
        id = device.id
        timeZone = device.timeZone
        platform = device.platform.rawValue
        fcmToken = device.fcmToken
        webPush = device.webPush
        token = device.token
        voipToken = device.voipToken
        locale = device.locale
        state = device.state.rawValue
        backgroundModes = device.backgroundModes
    }

    func encode(to encoder: any Encoder) throws {
        // Optional fields are written as null rather than left out, so clients see the full shape.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encode(id, forKey: .id)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(platform, forKey: .platform)
        try container.encode(token, forKey: .token)
        try container.encode(voipToken, forKey: .voipToken)
        try container.encode(fcmToken, forKey: .fcmToken)
        try container.encode(webPush, forKey: .webPush)
        try container.encode(locale, forKey: .locale)
        try container.encode(state, forKey: .state)
        try container.encode(backgroundModes, forKey: .backgroundModes)
        try container.encode(pushToStartTokens, forKey: .pushToStartTokens)
        try container.encode(activities, forKey: .activities)
    }

    enum CodingKeys: String, CodingKey {
        case app, id, timeZone, platform, token, voipToken, fcmToken, webPush, locale, state, backgroundModes
        case pushToStartTokens, activities
    }
}
