import HeraldCore

/// `PUT /v1/apps/{app}` body.
struct AppBody: Decodable {
    var overflow: String?
}

/// An app as the API shows it.
struct AppResource: Encodable {
    var id: String
    var overflow: String

    init(_ app: App) {
        id = app.id
        overflow = app.overflow.rawValue
    }
}
