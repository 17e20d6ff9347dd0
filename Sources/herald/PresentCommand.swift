import ArgumentParser

/// `herald present`: deliver a notification now without storing it.
struct PresentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "present", abstract: "Deliver a notification now.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: DeviceOptions
    @OptionGroup var content: ContentOptions

    func validate() throws {
        _ = try content.fields()
    }

    func run() async throws {
        let reply = try await options.client.send("POST", "\(try target.path())/present", json: try content.fields())
        if options.json { return reply.printJSON() }
        let delivery = reply.object["delivery"] as? [String: Any]
        print("delivered \(cell(delivery?["occurrenceId"])) via \(cell(delivery?["channel"])): \(cell(delivery?["outcome"]))")
    }
}
