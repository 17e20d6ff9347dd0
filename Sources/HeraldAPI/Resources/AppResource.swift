import HeraldCore

/// `PUT /v1/apps/{app}` body.
struct AppBody: Decodable {
    var overflow: String?
    var push: PushSettings?
    var customKinds: [CustomKind]?
}

/// An app as the API shows it. Credentials appear as file paths; a password never does.
struct AppResource: Encodable {
    var id: String
    var overflow: String
    var push: PushSettings?
    var customKinds: [CustomKind]

    init(_ app: App) {
        id = app.id
        overflow = app.overflow.rawValue
        push = app.push
        customKinds = app.customKinds
    }
}
