import ArgumentParser
import Foundation
import HeraldClient

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
            _ = try liveActivity.liveActivity(alert: alertContent())
        }
        if direct {
            guard pushConfig != nil else { throw ValidationError("--direct needs --push-config FILE") }
            guard device.isEmpty else { throw ValidationError("--direct sends to --token only") }
        }
    }

    func run() async throws {
        let activity = try liveActivity.liveActivity(alert: alertContent())
        let apsObject: JSONValue? = try activity == nil ? apsValue() : nil
        let dataObject = try data.map { try jsonObject($0, flag: "--data") }
        if direct {
            try await DirectPush(app: app, tokens: token, type: type, priority: priority, expiration: expiration, id: id,
                                 collapseId: collapseId, pushConfig: pushConfig!, json: options.json)
                .send(aps: try JSONOutput.encoder().encode(apsObject ?? .object([:])),
                      data: try dataObject.map { try JSONOutput.encoder().encode($0) })
            return
        }
        let push = Push(app: app, tokens: token.isEmpty ? nil : token, devices: device.isEmpty ? nil : device, channel: channel,
                        type: activity == nil ? PushType(rawValue: type ?? "alert") : nil, priority: priority,
                        expiration: expiration, collapseId: collapseId, id: id, aps: apsObject, liveActivity: activity,
                        data: dataObject)
        let results = try await options.perform { client in try await client.push(push).results }
        if options.json {
            try JSONOutput.print(["results": results])
        } else {
            print(Self.table(results.map { ($0.token ?? $0.device ?? cell($0.channel), String($0.status), cell($0.apnsId), cell($0.reason)) }))
        }
        if results.contains(where: { $0.status != 200 }) { throw ExitCode(1) }
    }

    /// The aps dictionary from --aps, or from the alert flags (background: content-available only).
    private func apsValue() throws -> JSONValue {
        if let aps { return .object(try jsonObject(aps, flag: "--aps")) }
        if type == "background" { return ["content-available": 1] }
        var dictionary: [String: JSONValue] = [:]
        if let alert = alertContent() {
            var fields: [String: JSONValue] = [:]
            if let title { fields["title"] = .string(title) }
            if let subtitle { fields["subtitle"] = .string(subtitle) }
            if let body = alert.body { fields["body"] = .string(body) }
            dictionary["alert"] = .object(fields)
        }
        if let badge { dictionary["badge"] = .number(Double(badge)) }
        if let sound { dictionary["sound"] = .string(sound) }
        return .object(dictionary)
    }

    /// The alert flags: the aps alert, or a Live Activity's own alert; nil when none is given.
    private func alertContent() -> AlertContent? {
        title == nil && subtitle == nil && body == nil ? nil : AlertContent(title: title, subtitle: subtitle, body: body)
    }

    static func table(_ rows: [(String, String, String, String)]) -> String {
        var table = Table("TOKEN", "STATUS", "APNS-ID", "REASON")
        for row in rows { table.add(row.0, row.1, row.2, row.3) }
        return table.render()
    }
}
