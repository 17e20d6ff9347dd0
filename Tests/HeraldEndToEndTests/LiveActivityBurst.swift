import Foundation
import HeraldTestSupport
import Testing

/// A burst of scheduled Live Activity updates (one activity per device) and channel broadcasts,
/// for the fault tests: registers the audiences, schedules the burst over one or more servers,
/// and counts what the sandbox took per (audience, `apns-collapse-id`).
struct LiveActivityBurst {
    static let app = "com.example.alarm"
    /// Devices with an activity each, and channels; each holds at most 128 scheduled items.
    let devices: Int
    let channels: Int

    struct Item: Sendable {
        /// `devices/{id}` or `channels/{name}`.
        var audience: String
        var id: String
        var at: Date
        var liveActivity: [String: Int]
        var expectedKey: String
    }

    static func activityToken(_ device: Int) -> String { WebhookE2E.token(0x7000 + device) }

    /// Push settings (token auth, as Live Activities need) pointing at the sandbox at `sandboxURL`.
    static func pushSettings(sandboxURL: String) -> [String: Any] {
        ["environment": sandboxURL, "caFile": TestCertificates.path("dev-ca.pem"),
         "auth": ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001", "keyFile": TestCertificates.path("dev-apns-key.p8")]]
    }

    /// Registers the app (on `bases[0]`), the devices with their activities and the channels,
    /// spread over `bases`. Returns each channel's APNs id by name.
    func setUp(bases: [String], sandboxURL: String) async throws -> [String: String] {
        let app = try await http("PUT", "\(bases[0])/v1/apps/\(Self.app)", json: ["push": Self.pushSettings(sandboxURL: sandboxURL)])
        try #require(app.status == 201 || app.status == 200, "\(String(decoding: app.body, as: UTF8.self))")
        for device in 0..<devices {
            let base = "\(bases[device % bases.count])/v1/apps/\(Self.app)/devices/la-\(device)"
            let put = try await http("PUT", base, json: ["timeZone": "UTC"])
            try #require(put.status == 201 || put.status == 200, "\(String(decoding: put.body, as: UTF8.self))")
            let activity = try await http("PUT", base + "/activities/act-\(device)", json: ["token": Self.activityToken(device)])
            try #require(activity.status == 201 || activity.status == 200, "\(String(decoding: activity.body, as: UTF8.self))")
        }
        var ids: [String: String] = [:]
        for channel in 0..<channels {
            let reply = try await http("POST", "\(bases[channel % bases.count])/v1/apps/\(Self.app)/channels",
                                       json: ["name": "ch-\(channel)"])
            try #require(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
            ids["ch-\(channel)"] = reply.json.string("apnsChannelId")
        }
        return ids
    }

    /// `count` one-shots from `start`, spread over `spread` seconds, alternating between device
    /// updates and broadcasts.
    func items(count: Int, start: Date, spread: TimeInterval) -> [Item] {
        (0..<count).map { index in
            let at = start.addingTimeInterval(spread * Double(index) / Double(count))
            let id = "b\(index)"
            if index % 2 == 0 {
                let device = (index / 2) % devices
                return Item(audience: "devices/la-\(device)", id: id, at: at, liveActivity: ["remaining": index],
                            expectedKey: "\(Self.activityToken(device))/\(id)#0")
            }
            let channel = (index / 2) % channels
            return Item(audience: "channels/ch-\(channel)", id: id, at: at, liveActivity: ["remaining": index],
                        expectedKey: "ch-\(channel)/\(id)#0")
        }
    }

    /// Schedules `items`, 16 requests at a time, spread over `bases`.
    func schedule(_ items: [Item], bases: [String]) async throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let fireDates = items.map { formatter.string(from: $0.at) }
        try await forEach(items, concurrently: 16) { index, item in
            var liveActivity: [String: Any] = ["event": "update", "contentState": item.liveActivity]
            if item.audience.hasPrefix("devices/la-") {
                liveActivity["activity"] = "act-" + item.audience.dropFirst("devices/la-".count)
            }
            let reply = try await http("POST", "\(bases[index % bases.count])/v1/apps/\(Self.app)/\(item.audience)/notifications",
                                       json: ["id": item.id, "fireDate": fireDates[index], "liveActivity": liveActivity])
            try #require(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
        }
    }

    /// How many pushes the sandbox took per `token/collapseId` and `channel/collapseId`.
    func received(sandboxAdmin: String, channelIDs: [String: String]) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for device in 0..<devices {
            let token = Self.activityToken(device)
            for entry in try await http("GET", "\(sandboxAdmin)/inbox/\(token)").json.objects("notifications") {
                counts["\(token)/\(entry.string("collapseId") ?? "-")", default: 0] += 1
            }
        }
        for (name, id) in channelIDs {
            let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
            for entry in try await http("GET", "\(sandboxAdmin)/broadcasts?channel=\(escaped)").json.objects("broadcasts") {
                counts["\(name)/\(entry.string("collapseId") ?? "-")", default: 0] += 1
            }
        }
        return counts
    }
}
