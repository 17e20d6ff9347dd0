import HeraldCore

/// `PUT /v1/apps/{app}` body.
struct AppBody: Decodable {
    var overflow: String?
    var push: PushSettings?
    var customKinds: [CustomKind]?
}

/// An app as the API shows it: file paths and ids appear, uploaded secrets and passwords are
/// masked.
struct AppResource: Encodable {
    var id: String
    var overflow: String
    var push: PushSettings?
    var customKinds: [CustomKind]

    init(_ app: App) {
        id = app.id
        overflow = app.overflow.rawValue
        push = app.push?.masked
        customKinds = app.customKinds
    }
}
