import Foundation
import HeraldCore
import HeraldCrypto

/// `herald doctor` for FCM and Web Push: the same plain-words checks as for APNs.
///
/// FCM: the service account parses and its key loads, the token endpoint grants an access token,
/// and a `validate_only` send to a made-up token is judged by FCM (a refusal of the token means
/// the credentials and project are right; `SENDER_ID_MISMATCH` or a 401/403 means they are not).
/// Web Push: the VAPID key pair is valid and signs, and the subject is a contact.
extension PushDoctor {
    /// The registration token the FCM probe is addressed to: well formed, and nobody's.
    static let fcmProbeToken = "herald-doctor-probe"

    func examineFCM(_ app: App, settings: FCMSettings) async -> [Check] {
        var checks: [Check] = []
        func skipRest(after name: String) {
            let names = ["fcm.settings", "fcm.accessToken", "fcm.send"]
            for later in names.drop(while: { $0 != name }).dropFirst() {
                checks.append(Check(name: later, outcome: .skipped, detail: "skipped: an earlier check failed"))
            }
        }
        let client: FCMClient
        do {
            try policy.check(files: settings.filePaths)
            let (accessTokens, loops) = (self.accessTokens, self.loops)
            client = try await loops.run {
                try FCMClient(appID: app.id, settings: settings, poolSize: 1, retry: RetryPolicy(maximumAttempts: 1),
                              tokenSources: accessTokens, loops: loops)
            }
            checks.append(Check(name: "fcm.settings", outcome: .passed,
                                detail: "service account \(client.account.clientEmail) of project \(client.account.projectID) loads (RSA key)"))
        } catch {
            checks.append(Check(name: "fcm.settings", outcome: .failed, detail: (error as? HeraldError)?.message ?? "\(error)"))
            skipRest(after: "fcm.settings")
            return checks
        }
        defer { Task { await client.close() } }
        do {
            let token = try await client.accessToken()
            checks.append(Check(name: "fcm.accessToken", outcome: .passed,
                                detail: "\(client.account.tokenURI) granted an access token, valid until \(RFC3339.string(from: token.expiresAt))"))
        } catch {
            checks.append(Check(name: "fcm.accessToken", outcome: .failed,
                                detail: "the token endpoint did not grant an access token: \(error)"))
            skipRest(after: "fcm.accessToken")
            return checks
        }
        let outcome: PushOutcome
        do {
            let probe = try FCMMessage(token: Self.fcmProbeToken, push: try ChannelPush(type: .background, aps: APS(contentAvailable: 1),
                                                                                         custom: ["probe": .string("herald doctor")]),
                                       now: Date())
            outcome = await client.send([probe], timeout: timeout, validateOnly: true)[0]
        } catch {
            checks.append(Check(name: "fcm.send", outcome: .failed, detail: "cannot build the probe: \(error.message)"))
            return checks
        }
        let (passed, detail) = Self.explainFCM(outcome, project: client.account.projectID)
        checks.append(Check(name: "fcm.send", outcome: passed ? .passed : .failed, detail: detail))
        return checks
    }

    /// What FCM's answer to the `validate_only` probe says about the settings.
    static func explainFCM(_ outcome: PushOutcome, project: String) -> (passed: Bool, detail: String) {
        let answered = "FCM answered over HTTP/2 with TLS"
        switch (outcome.status, outcome.reason) {
        case (200, _):
            return (true, "\(answered) and validated a probe message for project \(project)")
        case (_, FCMReason.invalidArgument?), (_, FCMReason.unregistered?):
            return (true, "\(answered) and accepted the credentials for project \(project) (the probe's made-up token was refused, as it should be)")
        case (_, FCMReason.senderIDMismatch?):
            return (false, "\(answered) but the token belongs to another sender (SENDER_ID_MISMATCH): the service account's project is not the app's Firebase project")
        case (401, _), (403, _):
            return (false, "\(answered) but refused the credentials (\(outcome.reason ?? "HTTP\(outcome.status)")): give the service account the Firebase Cloud Messaging API Admin role, and enable the FCM API for project \(project)")
        case (404, _):
            return (false, "\(answered) but knows no project \(project): check project_id")
        default:
            return (false, "the probe failed: HTTP \(outcome.status) \(outcome.reason ?? "")")
        }
    }

    func examineWebPush(_ settings: WebPushSettings) -> [Check] {
        var checks: [Check] = []
        do {
            try settings.validate()
            checks.append(Check(name: "webPush.subject", outcome: .passed, detail: "subject \(settings.subject)"))
        } catch {
            checks.append(Check(name: "webPush.subject", outcome: .failed, detail: error.message))
        }
        do {
            guard let pem = settings.vapidPrivateKey else { throw HeraldError.invalid(.invalidWebPushSettings, "no VAPID private key is stored") }
            let key = try ES256Key(pem: pem)
            let publicKey = Base64URL.encode(try key.publicKeyPoint)
            guard publicKey == settings.vapidPublicKey else {
                throw HeraldError.invalid(.invalidWebPushSettings, "the stored public key is not the private key's")
            }
            let token = try VAPIDToken.sign(audience: "https://push.example", subject: settings.subject,
                                            expiresAt: Date().addingTimeInterval(3600), key: key)
            _ = try VAPIDToken.verify(authorization: token.authorizationHeader, expectedAudience: "https://push.example", now: Date())
            checks.append(Check(name: "webPush.vapidKeys", outcome: .passed,
                                detail: "the VAPID key pair is valid and signs (ES256); pages subscribe with applicationServerKey \(publicKey)"))
        } catch {
            checks.append(Check(name: "webPush.vapidKeys", outcome: .failed,
                                detail: (error as? HeraldError)?.message ?? "the VAPID key pair does not sign: \(error)"))
        }
        return checks
    }
}
