import ArgumentParser

/// `herald show ID`: one notification with a preview of its next occurrences.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a notification and its next occurrences.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: AudienceOptions
    @Argument(help: "Notification id.") var id: String
    @Option(help: "How many upcoming occurrences to preview (0–100).") var occurrences = 5

    func run() async throws {
        let reply = try await options.client.send("GET", "\(try target.path())/notifications/\(id)?occurrences=\(occurrences)")
        if options.json { return reply.printJSON() }
        let object = reply.object
        let alert = shownAlert(object)
        print("""
            id:         \(cell(object["id"]))
            fire date:  \(cell(object["fireDate"])) (\(cell(object["timeZone"] ?? "absolute")))
            repeat:     \(describeRepeat(object["repeat"]))
            alert:      \(cell(alert?["title"])) / \(cell(alert?["body"]))
            next fire:  \(cell(object["nextFireDate"]))
            """)
        if let liveActivity = describeLiveActivity(object["liveActivity"]) { print("live activity: \(liveActivity)") }
        let upcoming = object["occurrences"] as? [String] ?? []
        if !upcoming.isEmpty {
            print("upcoming (UTC):")
            for instant in upcoming { print("  \(instant)") }
        }
    }
}
