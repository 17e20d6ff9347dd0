import ArgumentParser
import HeraldClient

/// `herald activity put|list|show|delete APP DEVICE [ACTIVITY]`: the update tokens of a device's
/// running Live Activities, which scheduled and pushed updates and ends are addressed to.
struct ActivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity", abstract: "Register, list, show or delete a device's Live Activity tokens.",
        subcommands: [Put.self, List.self, Show.self, Delete.self])

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register or update a running activity's push token.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "App bundle id.") var app: String
        @Argument(help: "Device id.") var device: String
        @Argument(help: "Activity id, as the app names it.") var activity: String
        @Option(help: "The activity's push token (hex), from pushTokenUpdates.") var token: String
        @Option(help: "Its ActivityAttributes type.") var attributesType: String?

        func run() async throws {
            try await options.perform { client in
                let stored = try await client.putActivity(app: app, device: device, activity: activity, token: token,
                                                          attributesType: attributesType)
                if options.json { return try JSONOutput.print(stored.value) }
                print("activity \(activity) \(stored.created ? "created" : "updated") on device \(device)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a device's registered activities.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String

        func run() async throws {
            try await options.perform { client in
                let activities = try await collect(client.allActivities(app: app, device: device))
                if options.json { return try JSONOutput.printListing(activities, legacyKey: "activities") }
                print(ActivityCommand.table(activities))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one registered activity.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String
        @Argument var activity: String

        func run() async throws {
            try await options.perform { client in
                let shown = try await client.activity(app: app, device: device, activity: activity)
                if options.json { return try JSONOutput.print(shown) }
                print(ActivityCommand.table([shown]))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget an activity's token (it ended on the device).")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String
        @Argument var activity: String

        func run() async throws {
            try await options.perform { client in
                try await client.forgetActivity(app: app, device: device, activity: activity)
                if !options.json { print("activity \(activity) deleted") }
            }
        }
    }

    static func table(_ activities: [ActivityRegistration]) -> String {
        var table = Table("ACTIVITY", "ATTRIBUTES TYPE", "TOKEN")
        for item in activities {
            table.add(item.activity, cell(item.attributesType), item.token)
        }
        return table.render()
    }
}
