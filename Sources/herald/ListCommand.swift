import ArgumentParser

/// `herald list`: a device's (or a broadcast channel's) pending notifications, soonest first.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List pending notifications.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: AudienceOptions

    func run() async throws {
        let reply = try await options.client.send("GET", "\(try target.path())/notifications")
        if options.json { return reply.printJSON() }
        var table = Table("ID", "NEXT FIRE (UTC)", "FIRE DATE", "TIME ZONE", "REPEAT", "TITLE", "BODY")
        for item in reply.object["notifications"] as? [[String: Any]] ?? [] {
            let alert = shownAlert(item)
            // A Live Activity push without an alert: say what it does instead.
            let body = alert?["body"] as? String ?? describeLiveActivity(item["liveActivity"]).map { "(live activity \($0))" }
            table.add(cell(item["id"]), cell(item["nextFireDate"]), cell(item["fireDate"]), cell(item["timeZone"]),
                      describeRepeat(item["repeat"]), cell(alert?["title"]), cell(body))
        }
        print(table.render())
    }
}

/// `every 2 week, 10 times` style summary of a repeat object.
func describeRepeat(_ value: Any?) -> String {
    guard let rule = value as? [String: Any], let unit = rule["unit"] as? String else { return "-" }
    var text = "every \((rule["every"] as? Int).map { $0 == 1 ? "" : "\($0) " } ?? "")\(unit)"
    if let count = rule["count"] as? Int { text += ", \(count) times" }
    if let until = rule["until"] as? String { text += ", until \(until)" }
    return text
}

/// The alert a notification shows: its own, or its Live Activity's (which may have none).
func shownAlert(_ notification: [String: Any]) -> [String: Any]? {
    (notification["alert"] ?? (notification["liveActivity"] as? [String: Any])?["alert"]) as? [String: Any]
}

/// `update match-42`, `start MatchAttributes` or `end` for a `liveActivity` object; nil for none.
func describeLiveActivity(_ value: Any?) -> String? {
    guard let object = value as? [String: Any], let event = object["event"] as? String else { return nil }
    guard let subject = object["activity"] as? String ?? object["attributesType"] as? String else { return event }
    return "\(event) \(subject)"
}
