import HeraldCore

/// `PUT /v1/apps/{app}` body.
struct AppBody: Decodable {
    var overflow: String?
    var push: PushSettings?
    var customKinds: [CustomKind]?
    var fcm: FCMSettings?
    var webPush: WebPushSettings?
}

/// An app as the API shows it: file paths and ids appear, uploaded secrets and passwords are
/// masked.
struct AppResource: Encodable {
    var id: String
    var overflow: String
    var push: PushSettings?
    var customKinds: [CustomKind]
    var fcm: FCMResource?
    var webPush: WebPushSettings?

    init(_ app: App) {
        id = app.id
        overflow = app.overflow.rawValue
        push = app.push?.masked
        customKinds = app.customKinds
        fcm = app.fcm.map(FCMResource.init)
        webPush = app.webPush?.masked
    }
}

/// FCM settings as the API shows them: the account's project and email, never its key.
struct FCMResource: Encodable {
    var projectId: String?
    var clientEmail: String?
    var serviceAccountFile: String?
    var endpoint: String?
    var caFile: String?

    init(_ settings: FCMSettings) {
        let account = try? settings.account()
        projectId = account?.projectID
        clientEmail = account?.clientEmail
        if case .file(let path) = settings.serviceAccount { serviceAccountFile = path }
        endpoint = settings.endpoint
        caFile = settings.caFile
    }
}
