import ArgumentParser
import HeraldClient

/// `herald present`: deliver a notification now without storing it.
struct PresentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "present", abstract: "Deliver a notification now.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: DeviceOptions
    @OptionGroup var content: ContentOptions

    func validate() throws {
        _ = try content.presentRequest()
    }

    func run() async throws {
        let (app, device) = (try target.appID(), try target.deviceID())
        let request = try content.presentRequest()
        try await options.perform { client in
            let delivery = try await client.present(app: app, device: device, request)
            if options.json { return try JSONOutput.print(["delivery": delivery]) }
            print("delivered \(delivery.occurrenceId) via \(delivery.channel): \(delivery.outcome)")
        }
    }
}
