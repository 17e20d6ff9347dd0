import HeraldCore

/// `PUT /v1/apps/{app}/devices/{device}` body. A PUT replaces the registration; the lifecycle
/// state is kept.
struct DeviceBody: Decodable {
    var timeZone: String?
    var token: String?
    var voipToken: String?
    var locale: String?
    var backgroundModes: [String]?

    /// Validates the body into a device, keeping `state` from the stored one.
    func device(appID: String, id: String, state: LifecycleState) throws(HeraldError) -> Device {
        guard let timeZone else { throw .invalid("missingField", "timeZone is required (an IANA zone such as Europe/Paris)") }
        _ = try DeviceRules.timeZone(timeZone)
        return Device(appID: appID, id: id, timeZone: timeZone,
                      token: try token.map { value throws(HeraldError) in try DeviceRules.token(value, field: "token") },
                      voipToken: try voipToken.map { value throws(HeraldError) in try DeviceRules.token(value, field: "voipToken") },
                      locale: try locale.map { value throws(HeraldError) in try DeviceRules.locale(value) },
                      state: state, backgroundModes: try DeviceRules.backgroundModes(backgroundModes ?? []))
    }
}

/// A device as the API shows it.
struct DeviceResource: Encodable {
    var app: String
    var id: String
    var timeZone: String
    var token: String?
    var voipToken: String?
    var locale: String?
    var state: String
    var backgroundModes: [String]

    init(_ device: Device) {
        app = device.appID
        id = device.id
        timeZone = device.timeZone
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
        try container.encode(token, forKey: .token)
        try container.encode(voipToken, forKey: .voipToken)
        try container.encode(locale, forKey: .locale)
        try container.encode(state, forKey: .state)
        try container.encode(backgroundModes, forKey: .backgroundModes)
    }

    enum CodingKeys: String, CodingKey { case app, id, timeZone, token, voipToken, locale, state, backgroundModes }
}
