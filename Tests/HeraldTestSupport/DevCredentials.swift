import HeraldCore

/// The identities the committed dev credentials in `Certs/` carry (the sandbox trusts them), as
/// push settings take them: one definition for every suite that pushes as the dev app.
public enum Dev {
    public static let bundleID = "com.example.herald"
    public static let teamID = "DEVTEAM001"
    public static let keyID = "DEVKEY0001"

    /// Token auth with the dev APNs key (`dev-apns-key.p8`).
    public static let tokenAuth = PushSettings.Auth.token(teamId: teamID, keyId: keyID,
                                                          key: .file(TestCertificates.path("dev-apns-key.p8")))
    /// Certificate auth with the dev client identity (`dev-client.pem`, `dev-client.key`).
    public static let certificateAuth = PushSettings.Auth.certificate(.pem(certificate: .file(TestCertificates.path("dev-client.pem")),
                                                                           key: .file(TestCertificates.path("dev-client.key"))))
}
