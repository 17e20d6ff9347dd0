import HeraldCore

/// `PUT /v1/apps/{app}` body.
struct AppBody: Decodable {
    var overflow: String?
    var push: PushSettings?
}

/// An app as the API shows it. Credentials appear as file paths; a password never does.
struct AppResource: Encodable {
    var id: String
    var overflow: String
    var push: PushSettings?

    init(_ app: App) {
        id = app.id
        overflow = app.overflow.rawValue
        push = app.push
    }
}
