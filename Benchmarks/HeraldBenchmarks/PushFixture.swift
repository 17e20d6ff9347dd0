import Foundation
import HeraldCore

/// What the push benchmark sends, on both sides: the same alert push to a few device tokens
/// (the sandbox keeps at most 1,000 entries per token, so its memory stays bounded).
enum PushFixture {
    static let bundleID = "bench.app"
    static let teamID = "DEVTEAM001"
    static let keyID = "DEVKEY0001"
    static let tokens = (0..<4).map { index in String(repeating: String(format: "%02x", 0xa0 + index), count: 32) }
    /// The 1,000 tokens of one `POST /v1/push` request in the API benchmark.
    static let batchTokens = (0..<1000).map { String(format: "%056x%08x", 0xb0, $0) }

    /// The push to token `index`; Herald gives every push its own `apns-id` when it sends it.
    static func push(token index: Int) throws -> APNsPush {
        try APNsPush(token: tokens[index % tokens.count], type: .alert, bundleID: bundleID,
                     aps: APS(alert: .content(.init(title: "Herald benchmark", body: "Your 07:30 alarm is ringing")),
                              badge: 1, sound: .named("default")))
    }

    /// Settings for the sandbox on `port`, with the committed dev CA and token key.
    static func settings(port: Int, certificates: String) -> PushSettings {
        PushSettings(environment: "https://127.0.0.1:\(port)", caFile: "\(certificates)/dev-ca.pem",
                     auth: .token(teamId: teamID, keyId: keyID, key: .file("\(certificates)/dev-apns-key.p8")))
    }
}
