import ArgumentParser

/// `herald deliveries`: what fired for a device, newest first.
struct DeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deliveries", abstract: "List recorded deliveries, newest first.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: AudienceOptions
    @Option(help: "How many (1–1000).") var limit = 20

    func run() async throws {
        let reply = try await options.client.send("GET", "\(try target.path())/deliveries?limit=\(limit)")
        if options.json { return reply.printJSON() }
        var table = Table("OCCURRENCE", "SCHEDULED FOR (UTC)", "FIRED AT (UTC)", "LATE", "MISSED", "CHANNEL", "OUTCOME")
        for item in reply.object["deliveries"] as? [[String: Any]] ?? [] {
            table.add(cell(item["occurrenceId"]), cell(item["scheduledFor"]), cell(item["firedAt"]),
                      (item["late"] as? Bool ?? false) ? "late" : "-", cell(item["missed"]),
                      cell(item["channel"]), cell(item["outcome"]))
        }
        print(table.render())
    }
}
