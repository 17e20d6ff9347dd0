import Foundation
import HeraldCore
import HeraldStorage

/// The `<main>` content of each status page, from the reports `GET /v1/status…` also serves.
///
/// Rows carry their raw ids and outcomes in `data-` attributes, so scripts and tests read them
/// without parsing the visible text.
enum StatusPages {
    typealias Layout = StatusPageLayout

    /// `/ui`: every app, the totals, and the charts.
    static func apps(_ overview: StatusReports.Overview, now: Date) -> String {
        let rows = overview.apps.map { app in
            "<tr data-app=\"\(Layout.html(app.app))\"><td><a href=\"/ui/apps/\(Layout.segment(app.app))\">\(Layout.html(app.app))</a></td>"
                + "<td>\(app.devices)</td><td>\(app.pending)</td><td>\(outcomes(app.pushesLastHour))</td><td>\(app.invalidTokens)</td></tr>"
        }
        let cards = [("Pending notifications", overview.pendingNotifications), ("Fired, not yet delivered", overview.fireLogBacklog),
                     ("Outbox pending", overview.outbox["pending"] ?? 0), ("Outbox parked", overview.outbox["parked"] ?? 0)]
            .map { "<div class=\"card\">\(Layout.html($0.0))<b>\($0.1)</b></div>" }.joined()
        return Layout.heading("Apps", now: now)
            + "<div class=\"cards\">\(cards)</div>"
            + Layout.table(id: "apps", columns: ["App", "Devices", "Pending", "Pushes in the last hour", "Invalid tokens"],
                           rows: rows, empty: "No apps yet.")
            + "<div class=\"charts\">" + StatusCharts.pushesPerMinute(overview.pushesPerMinute)
            + StatusCharts.pushesPerMinuteByPlatform(overview.pushesPerMinute)
            + StatusCharts.latenessHistogram(overview.firingLateness) + "</div>"
    }

    /// `/ui/apps/{app}`: the app's devices.
    static func app(_ report: StatusReports.AppReport, now: Date) -> String {
        let base = "/ui/apps/\(Layout.segment(report.app))"
        let rows = report.devices.map { device in
            "<tr data-device=\"\(Layout.html(device.device))\" data-platform=\"\(Layout.html(device.platform))\"><td><a href=\"\(base)/devices/\(Layout.segment(device.device))\">\(Layout.html(device.device))</a></td>"
                + "<td>\(Layout.html(device.platform))</td><td>\(Layout.html(device.state))</td><td>\(Layout.html(device.timeZone))</td><td>\(device.pending)</td>"
                + "<td>\(device.inbox)</td><td>\(device.backlog)</td></tr>"
        }
        let limit = report.devices.count >= StatusReports.deviceLimit
            ? "<p class=\"muted\">The first \(StatusReports.deviceLimit) devices, by id.</p>" : ""
        let channels = report.channels.map { channel in
            "<tr data-channel=\"\(Layout.html(channel.name))\"><td>\(Layout.html(channel.name))</td><td><code>\(Layout.html(channel.apnsChannelId))</code></td>"
                + "<td>\(channel.messageStoragePolicy)</td><td>\(channel.nextBroadcasts.map(Layout.html).joined(separator: "<br>"))</td></tr>"
        }
        return Layout.heading(report.app, trail: [("Apps", "/ui")], now: now)
            + "<p>Pushes in the last hour: \(outcomes(report.pushesLastHour))</p>"
            + Layout.table(id: "devices", columns: ["Device", "Platform", "State", "Time zone", "Pending", "Inbox", "Coalesced backlog"],
                           rows: rows, empty: "No devices yet.") + limit
            + "<h2>Broadcast channels</h2>"
            + Layout.table(id: "channels", columns: ["Channel", "APNs channel id", "Storage policy", "Next broadcasts"],
                           rows: channels, empty: "No channels.")
    }

    /// `/ui/apps/{app}/devices/{device}`: what waits for the device and what reached it.
    static func device(_ report: StatusReports.DeviceReport, now: Date) -> String {
        let pending = report.pending.map { line in
            "<tr data-notification=\"\(Layout.html(line.id))\"><td><code>\(Layout.html(line.id))</code></td>"
                + "<td>\(line.title.map { "<b>\(Layout.html($0))</b><br>" } ?? "")\(Layout.html(line.body))</td>"
                + "<td>\(line.nextOccurrences.map(Layout.html).joined(separator: "<br>"))</td></tr>"
        }
        let deliveries = report.deliveries.map { delivery in
            "<tr data-notification=\"\(Layout.html(delivery.notificationId))\" data-channel=\"\(Layout.html(delivery.channel))\" "
                + "data-outcome=\"\(Layout.html(delivery.outcome))\"><td>\(Layout.html(delivery.firedAt))</td>"
                + "<td><code>\(Layout.html(delivery.notificationId))</code></td><td>\(Layout.html(delivery.scheduledFor))</td>"
                + "<td>\(Layout.html(delivery.channel))</td><td class=\"outcome-\(Layout.html(delivery.outcome))\">\(Layout.html(delivery.outcome))</td>"
                + "<td>\(delivery.apnsStatus.map(String.init) ?? "")</td></tr>"
        }
        let inbox = report.inbox.map { item in
            "<tr data-seq=\"\(item.seq)\"><td>\(item.seq)</td><td><code>\(Layout.html(item.notificationId))</code></td>"
                + "<td>\(Layout.html(item.firedAt))</td></tr>"
        }
        let backlog = report.backlog.map { item in
            "<tr data-kind=\"\(Layout.html(item.kind))\"><td>\(Layout.html(item.kind))</td><td>\(Layout.html(item.key ?? ""))</td>"
                + "<td>\(Layout.html(item.value.map(describe) ?? ""))</td><td>\(item.count)</td></tr>"
        }
        let activities = report.activities.map { line in
            "<tr data-activity=\"\(Layout.html(line.activity))\"><td>\(Layout.html(line.activity))</td><td>\(Layout.html(line.attributesType ?? ""))</td>"
                + "<td><code>\(Layout.html(line.token))</code></td><td>\(line.nextEvents.map(Layout.html).joined(separator: "<br>"))</td></tr>"
        }
        let startable = report.pushToStartTypes.isEmpty ? ""
            : "<p>Live Activities can be started for: \(report.pushToStartTypes.map(Layout.html).joined(separator: ", "))</p>"
        return Layout.heading(report.device, trail: [("Apps", "/ui"), (report.app, "/ui/apps/\(Layout.segment(report.app))")], now: now)
            + "<p>Platform <b>\(Layout.html(report.platform))</b> · state <b>\(Layout.html(report.state))</b> · time zone <b>\(Layout.html(report.timeZone))</b></p>"
            + "<h2>Live Activities</h2>" + startable
            + Layout.table(id: "activities", columns: ["Activity", "Attributes type", "Token", "Next events"], rows: activities,
                           empty: "No running activities.")
            + "<h2>Pending notifications</h2>"
            + Layout.table(id: "pending", columns: ["Id", "Content", "Next occurrences"], rows: pending, empty: "Nothing scheduled.")
            + "<h2>Recent deliveries</h2>"
            + Layout.table(id: "deliveries", columns: ["Fired at", "Notification", "Scheduled for", "Channel", "Outcome", "APNs status"],
                           rows: deliveries, empty: "Nothing delivered yet.")
            + "<h2>Inbox</h2>"
            + Layout.table(id: "inbox", columns: ["Seq", "Notification", "Fired at"], rows: inbox, empty: "Empty.")
            + "<h2>Coalesced backlog</h2>"
            + Layout.table(id: "backlog", columns: ["Kind", "Key", "Net value", "Events"], rows: backlog, empty: "Empty.")
    }

    /// `/ui/outbox`: feedback messages not yet delivered, parked ones with a retry button.
    static func outbox(_ messages: [OutboxMessage], fullReceivers: [String], now: Date) -> String {
        let rows = messages.map { message in
            let retry = message.state == .parked ? "<button data-retry=\"\(message.id)\">Retry</button>" : ""
            return "<tr data-message=\"\(message.id)\" data-state=\"\(message.state.rawValue)\"><td>\(message.id)</td>"
                + "<td>\(Layout.html(message.type))</td><td>\(Layout.html(message.url))</td><td>\(message.state.rawValue)</td>"
                + "<td>\(message.attempts)</td><td>\(Layout.html(message.lastError ?? ""))</td><td>\(retry)</td></tr>"
        }
        let full = fullReceivers.isEmpty ? ""
            : "<p class=\"outcome-failed\">Outbox share full for: \(fullReceivers.map(Layout.html).joined(separator: ", "))</p>"
        return Layout.heading("Feedback outbox", trail: [("Apps", "/ui")], now: now) + full
            + Layout.table(id: "outbox", columns: ["Id", "Event", "Receiver", "State", "Attempts", "Last error", ""],
                           rows: rows, empty: "Nothing waiting: every feedback event was delivered.")
    }

    /// "3 accepted, 1 unregistered", coloured by outcome.
    private static func outcomes(_ counts: [String: Int]) -> String {
        let parts = StatusCharts.outcomeColors.compactMap { outcome, _ -> String? in
            guard let count = counts[outcome], count > 0 else { return nil }
            return "<span class=\"outcome-\(outcome)\">\(count) \(outcome)</span>"
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    private static func describe(_ value: some Encodable) -> String {
        (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? ""
    }
}
