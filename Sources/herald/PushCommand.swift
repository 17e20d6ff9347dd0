import ArgumentParser
import Foundation
import HeraldCore
import HeraldPush
import Yams

/// `herald push`: send an alert, background or VoIP push, through the server or directly; or a
/// Live Activity push through the server, to tokens, devices or a broadcast channel.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push", abstract: "Send a push to tokens, devices or a broadcast channel.",
        discussion: """
            Through the server by default (the app's push settings are used). With --direct, sends \
            straight to APNs using a push settings file (YAML or JSON: environment, caFile, auth), \
            like a one-shot sender; --device is not available then.

            With --live-activity, the push is a Live Activity push (through the server only): \
            --title, --subtitle and --body become the activity's optional alert, and it goes to \
            --token, --device or --channel (a broadcast: update or end, naming no --activity).
            """)

    @OptionGroup var options: ClientOptions
    @Option(help: "App bundle id.") var app: String
    @Option(help: "Device token (hex); repeat for several.") var token: [String] = []
    @Option(help: "Device id registered on the server; repeat for several.") var device: [String] = []
    @Option(help: "Broadcast channel name (with --live-activity update|end).") var channel: String?
    @Option(help: "alert (default), background, voip, or another APNs push type.") var type: String?
    @Option(help: "Alert title.") var title: String?
    @Option(help: "Alert subtitle.") var subtitle: String?
    @Option(help: "Alert body.") var body: String?
    @Option(help: "Badge number.") var badge: Int?
    @Option(help: "Sound name.") var sound: String?
    @Option(help: "apns-priority (10, 5 or 1).") var priority: Int?
    @Option(help: "apns-expiration, unix seconds.") var expiration: Int?
    @Option(help: "apns-collapse-id (at most 64 bytes).") var collapseId: String?
    @Option(help: "apns-id (a UUID).") var id: String?
    @Option(help: "The whole aps dictionary as JSON (overrides the alert flags).") var aps: String?
    @Option(help: "Custom keys beside aps, as a JSON object.") var data: String?
    @Flag(help: "Send directly to APNs instead of through the server.") var direct = false
    @Option(help: "With --direct: the push settings file.") var pushConfig: String?
    @OptionGroup var liveActivity: LiveActivityOptions

    func validate() throws {
        let targets = [!token.isEmpty, !device.isEmpty, channel != nil].filter { $0 }.count
        guard targets > 0 else { throw ValidationError("give --token, --device or --channel") }
        if channel != nil, liveActivity.event == nil {
            throw ValidationError("--channel broadcasts a Live Activity push: add --live-activity update|end")
        }
        if liveActivity.event != nil {
            // The server takes one kind of target per Live Activity push, and no aps of its own.
            guard targets == 1 else { throw ValidationError("a --live-activity push goes to --token, --device or --channel: one of them") }
            guard aps == nil, badge == nil, sound == nil else {
                throw ValidationError("--aps, --badge and --sound go with an alert push, not --live-activity")
            }
            guard type == nil || type == "liveactivity" else {
                throw ValidationError("--live-activity pushes are of type liveactivity, not \(type!)")
            }
            guard !direct else { throw ValidationError("--direct sends aps pushes; send --live-activity through the server") }
            _ = try liveActivity.object(alert: alertDictionary())
        }
        if direct {
            guard pushConfig != nil else { throw ValidationError("--direct needs --push-config FILE") }
            guard device.isEmpty else { throw ValidationError("--direct sends to --token only") }
        }
    }

    func run() async throws {
        let activityObject = try liveActivity.object(alert: alertDictionary())
        let apsObject = try activityObject == nil ? apsDictionary() : [:]
        let dataObject = try data.map { try Self.jsonObject($0, flag: "--data") }
        if direct {
            try await sendDirect(aps: apsObject, data: dataObject)
            return
        }
        var entry: [String: Any] = ["app": app]
        if let activityObject {
            entry["liveActivity"] = activityObject
        } else {
            entry["type"] = type ?? "alert"
            entry["aps"] = apsObject
        }
        if let channel { entry["channel"] = channel }
        if !token.isEmpty { entry["tokens"] = token }
        if !device.isEmpty { entry["devices"] = device }
        if let priority { entry["priority"] = priority }
        if let expiration { entry["expiration"] = expiration }
        if let collapseId { entry["collapseId"] = collapseId }
        if let id { entry["id"] = id }
        if let dataObject { entry["data"] = dataObject }
        let reply = try await options.client.send("POST", "/v1/push", json: ["notifications": [entry]])
        if options.json { return reply.printJSON() }
        let rows = reply.object["results"] as? [[String: Any]] ?? []
        print(Self.table(rows.map {
            ($0["token"] as? String ?? $0["device"] as? String ?? cell($0["channel"]), cell($0["status"]), cell($0["apnsId"]), cell($0["reason"]))
        }))
        if rows.contains(where: { ($0["status"] as? Int) != 200 }) { throw ExitCode(1) }
    }

    private func sendDirect(aps: [String: Any], data: [String: Any]?) async throws {
        let text = try String(contentsOfFile: pushConfig!, encoding: .utf8)
        let settings = try YAMLDecoder().decode(PushSettings.self, from: text)
        try settings.validate()
        guard let type = APNsPushType(rawValue: type ?? "alert") else { throw ValidationError("unknown push type \(self.type!)") }
        let apsValue = try JSONDecoder().decode(APS.self, from: JSONSerialization.data(withJSONObject: aps))
        let custom = try data.map { try JSONDecoder().decode([String: JSONValue].self, from: JSONSerialization.data(withJSONObject: $0)) } ?? [:]
        let pushes = try token.map { token in
            try APNsPush(token: token, type: type, bundleID: app, priority: priority, expiration: expiration, id: id,
                         collapseID: collapseId, aps: apsValue, custom: custom)
        }
        let gateway = PushGateway(ledger: TransientTokenLedger())
        let outcomes = await gateway.send(pushes, app: App(id: app, push: settings))
        await gateway.shutdown()
        if options.json {
            let rows = outcomes.map { outcome -> [String: Any] in
                var row: [String: Any] = ["token": outcome.token, "status": outcome.status]
                if let apnsID = outcome.apnsID { row["apnsId"] = apnsID }
                if let reason = outcome.reason { row["reason"] = reason }
                if let timestamp = outcome.timestamp { row["timestamp"] = timestamp }
                return row
            }
            print(String(decoding: try JSONSerialization.data(withJSONObject: ["results": rows], options: [.sortedKeys]), as: UTF8.self))
        } else {
            print(Self.table(outcomes.map { ($0.token, String($0.status), $0.apnsID ?? "-", $0.reason ?? "-") }))
        }
        if outcomes.contains(where: { !$0.succeeded }) { throw ExitCode(1) }
    }

    /// The aps dictionary from --aps, or from the alert flags (background: content-available only).
    private func apsDictionary() throws -> [String: Any] {
        if let aps { return try Self.jsonObject(aps, flag: "--aps") }
        if type == "background" { return ["content-available": 1] }
        let alert = alertDictionary()
        var dictionary: [String: Any] = [:]
        if !alert.isEmpty { dictionary["alert"] = alert }
        if let badge { dictionary["badge"] = badge }
        if let sound { dictionary["sound"] = sound }
        return dictionary
    }

    /// The alert flags: the aps alert, or a Live Activity's own alert.
    private func alertDictionary() -> [String: Any] {
        var alert: [String: Any] = [:]
        if let title { alert["title"] = title }
        if let subtitle { alert["subtitle"] = subtitle }
        if let body { alert["body"] = body }
        return alert
    }

    static func jsonObject(_ text: String, flag: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw ValidationError("\(flag) must be a JSON object")
        }
        return object
    }

    static func table(_ rows: [(String, String, String, String)]) -> String {
        var table = Table("TOKEN", "STATUS", "APNS-ID", "REASON")
        for row in rows { table.add(row.0, row.1, row.2, row.3) }
        return table.render()
    }
}
