import ArgumentParser

/// `herald cancel ID` or `herald cancel --all`.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel one notification, or all of a device's.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: AudienceOptions
    @Argument(help: "Notification id.") var id: String?
    @Flag(help: "Cancel every pending notification of the device (or channel).") var all = false

    func validate() throws {
        guard (id == nil) != !all else { throw ValidationError("give a notification id or --all, not both") }
    }

    func run() async throws {
        if let id {
            _ = try await options.client.send("DELETE", "\(try target.path())/notifications/\(id)")
            if !options.json { print("cancelled \(id)") }
        } else {
            let reply = try await options.client.send("DELETE", "\(try target.path())/notifications")
            if options.json { return reply.printJSON() }
            print("cancelled \(cell(reply.object["cancelled"])) notifications")
        }
    }
}
