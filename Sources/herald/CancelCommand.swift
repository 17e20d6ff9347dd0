import ArgumentParser
import HeraldClient

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
        let audience = try target.audience()
        try await options.perform { client in
            if let id {
                switch audience {
                case .device(let app, let device): try await client.cancelNotification(app: app, device: device, id: id)
                case .channel(let app, let name): try await client.cancelChannelNotification(app: app, channel: name, id: id)
                }
                if !options.json { print("cancelled \(id)") }
            } else {
                let cancelled = switch audience {
                case .device(let app, let device): try await client.cancelAllNotifications(app: app, device: device)
                case .channel(let app, let name): try await client.cancelAllChannelNotifications(app: app, channel: name)
                }
                if options.json { return try JSONOutput.print(["cancelled": cancelled]) }
                print("cancelled \(cancelled) notifications")
            }
        }
    }
}
