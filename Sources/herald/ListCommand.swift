import ArgumentParser

/// `herald list`: a device's pending notifications, soonest first.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List pending notifications.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: DeviceOptions

    func run() async throws {
        let reply = try await options.client.send("GET", "\(try target.path())/notifications")
        if options.json { return reply.printJSON() }
        var table = Table("ID", "NEXT FIRE (UTC)", "FIRE DATE", "TIME ZONE", "REPEAT", "TITLE", "BODY")
        for item in reply.object["notifications"] as? [[String: Any]] ?? [] {
            table.add(cell(item["id"]), cell(item["nextFireDate"]), cell(item["fireDate"]), cell(item["timeZone"]),
                      describeRepeat(item["repeat"]), cell((item["alert"] as? [String: Any])?["title"]),
                      cell((item["alert"] as? [String: Any])?["body"]))
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
