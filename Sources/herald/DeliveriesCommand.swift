import ArgumentParser
import HeraldClient

/// `herald deliveries`: what fired for a device, newest first.
struct DeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deliveries", abstract: "List recorded deliveries, newest first.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: AudienceOptions
    @Option(help: "How many (1–1000).") var limit = 20

    func run() async throws {
        let audience = try target.audience()
        try await options.perform { client in
            let page = switch audience {
            case .device(let app, let device): try await client.deliveries(app: app, device: device, limit: limit)
            case .channel(let app, let name): try await client.channelDeliveries(app: app, channel: name, limit: limit)
            }
            if options.json { return try JSONOutput.printListing(page.items, nextCursor: page.nextCursor, legacyKey: "deliveries") }
            var table = Table("OCCURRENCE", "SCHEDULED FOR (UTC)", "FIRED AT (UTC)", "LATE", "MISSED", "CHANNEL", "OUTCOME")
            for item in page.items {
                table.add(item.occurrenceId, instantText(item.scheduledFor), instantText(item.firedAt), item.late ? "late" : "-",
                          String(item.missed), item.channel.rawValue, item.outcome.rawValue)
            }
            print(table.render())
        }
    }
}
