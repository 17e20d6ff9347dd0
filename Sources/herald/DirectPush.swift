import ArgumentParser
import Foundation
import HeraldCore
import HeraldPush
import Yams

// `herald push --direct`: straight to APNs with a push settings file, no Herald server. It uses
// the server's own push gateway, so this file imports HeraldCore and HeraldPush and not
// HeraldClient (both name types App, JSONValue and PushSettings).

/// A one-shot send to APNs, as `herald push --direct` asks for it.
struct DirectPush {
    var app: String
    var tokens: [String]
    var type: String?
    var priority: Int?
    var expiration: Int?
    var id: String?
    var collapseId: String?
    var pushConfig: String
    var json: Bool

    /// Sends the pushes; `aps` and `data` are JSON (the `aps` dictionary and the custom keys).
    func send(aps: Data, data: Data?) async throws {
        let text = try String(contentsOfFile: pushConfig, encoding: .utf8)
        let settings = try YAMLDecoder().decode(PushSettings.self, from: text)
        try settings.validate()
        guard let pushType = APNsPushType(rawValue: type ?? "alert") else { throw ValidationError("unknown push type \(type!)") }
        let apsValue = try JSONDecoder().decode(APS.self, from: aps)
        let custom = try data.map { try JSONDecoder().decode([String: JSONValue].self, from: $0) } ?? [:]
        let pushes = try tokens.map { token in
            try APNsPush(token: token, type: pushType, bundleID: app, priority: priority, expiration: expiration, id: id,
                         collapseID: collapseId, aps: apsValue, custom: custom)
        }
        let gateway = PushGateway(ledger: TransientTokenLedger())
        let outcomes = await gateway.send(pushes, app: App(id: app, push: settings))
        await gateway.shutdown()
        if json {
            let rows = outcomes.map { outcome -> [String: Any] in
                var row: [String: Any] = ["token": outcome.token, "status": outcome.status]
                if let apnsID = outcome.apnsID { row["apnsId"] = apnsID }
                if let reason = outcome.reason { row["reason"] = reason }
                if let timestamp = outcome.timestamp { row["timestamp"] = timestamp }
                return row
            }
            print(String(decoding: try JSONSerialization.data(withJSONObject: ["results": rows], options: [.sortedKeys]), as: UTF8.self))
        } else {
            print(PushCommand.table(outcomes.map { ($0.token, String($0.status), $0.apnsID ?? "-", $0.reason ?? "-") }))
        }
        if outcomes.contains(where: { !$0.succeeded }) { throw ExitCode(1) }
    }
}
