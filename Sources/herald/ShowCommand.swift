import ArgumentParser
import HeraldClient

/// `herald show ID`: one notification with a preview of its next occurrences.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a notification and its next occurrences.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: AudienceOptions
    @Argument(help: "Notification id.") var id: String
    @Option(help: "How many upcoming occurrences to preview (0–100).") var occurrences = 5

    func run() async throws {
        let audience = try target.audience()
        try await options.perform { client in
            let notification = switch audience {
            case .device(let app, let device):
                try await client.notification(app: app, device: device, id: id, occurrences: occurrences)
            case .channel(let app, let name):
                try await client.channelNotification(app: app, channel: name, id: id, occurrences: occurrences)
            }
            if options.json { return try JSONOutput.print(notification) }
            let alert = shownAlert(notification)
            print("""
                id:         \(notification.id)
                fire date:  \(notification.fireDate) (\(notification.timeZone ?? "absolute"))
                repeat:     \(describeRepeat(notification.repeat))
                alert:      \(cell(alert?.title)) / \(cell(alert?.body))
                next fire:  \(instantText(notification.nextFireDate))
                """)
            if let liveActivity = describeLiveActivity(notification.liveActivity) { print("live activity: \(liveActivity)") }
            let upcoming = notification.occurrences ?? []
            if !upcoming.isEmpty {
                print("upcoming (UTC):")
                for instant in upcoming { print("  \(instantText(instant))") }
            }
        }
    }
}
