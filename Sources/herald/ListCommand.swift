import ArgumentParser
import HeraldClient

/// `herald list`: a device's (or a broadcast channel's) pending notifications, soonest first.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List pending notifications.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: AudienceOptions

    func run() async throws {
        let audience = try target.audience()
        try await options.perform { client in
            let notifications = switch audience {
            case .device(let app, let device): try await collect(client.allNotifications(app: app, device: device))
            case .channel(let app, let name): try await collect(client.allChannelNotifications(app: app, channel: name))
            }
            if options.json { return try JSONOutput.printListing(notifications, legacyKey: "notifications") }
            var table = Table("ID", "NEXT FIRE (UTC)", "FIRE DATE", "TIME ZONE", "REPEAT", "TITLE", "BODY")
            for item in notifications {
                let alert = shownAlert(item)
                // A Live Activity push without an alert: say what it does instead.
                let body = alert?.body ?? describeLiveActivity(item.liveActivity).map { "(live activity \($0))" }
                table.add(item.id, instantText(item.nextFireDate), item.fireDate, cell(item.timeZone), describeRepeat(item.repeat),
                          cell(alert?.title), cell(body))
            }
            print(table.render())
        }
    }
}

/// `every 2 week, 10 times` style summary of a repeat rule.
func describeRepeat(_ rule: RepeatRule?) -> String {
    guard let rule, let unit = rule.unit else { return "-" }
    var text = "every \(rule.every.map { $0 == 1 ? "" : "\($0) " } ?? "")\(unit)"
    if let count = rule.count { text += ", \(count) times" }
    if let until = rule.until { text += ", until \(until)" }
    return text
}

/// The alert a notification shows: its own, or its Live Activity's (which may have none).
func shownAlert(_ notification: LocalNotification) -> AlertContent? {
    notification.alert ?? notification.liveActivity?.alert
}

/// `update match-42`, `start MatchAttributes` or `end` for a Live Activity; nil for none.
func describeLiveActivity(_ liveActivity: LiveActivity?) -> String? {
    guard let liveActivity else { return nil }
    guard let subject = liveActivity.activity ?? liveActivity.attributesType else { return liveActivity.event.rawValue }
    return "\(liveActivity.event) \(subject)"
}
