import HeraldCore

/// A plain alert push from the dev app (``Dev/bundleID``) to `token`: the push the push and
/// delivery suites send when the payload is not what they test.
public func alert(to token: String, title: String = "Hello", body: String = "World", id: String? = nil) throws -> APNsPush {
    try APNsPush(token: token, type: .alert, bundleID: Dev.bundleID, id: id,
                 aps: APS(alert: .content(.init(title: title, body: body))))
}
