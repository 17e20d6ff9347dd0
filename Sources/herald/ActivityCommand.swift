import ArgumentParser

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
            var body: [String: Any] = ["token": token]
            if let attributesType { body["attributesType"] = attributesType }
            let reply = try await options.client.send("PUT", "/v1/apps/\(app)/devices/\(device)/activities/\(activity)", json: body)
            if options.json { return reply.printJSON() }
            print("activity \(activity) \(reply.status == 201 ? "created" : "updated") on device \(device)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a device's registered activities.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String

        func run() async throws {
            let reply = try await options.client.send("GET", "/v1/apps/\(app)/devices/\(device)/activities")
            if options.json { return reply.printJSON() }
            print(ActivityCommand.table(reply.object["activities"] as? [[String: Any]] ?? []))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one registered activity.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String
        @Argument var activity: String

        func run() async throws {
            let reply = try await options.client.send("GET", "/v1/apps/\(app)/devices/\(device)/activities/\(activity)")
            if options.json { return reply.printJSON() }
            print(ActivityCommand.table([reply.object]))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget an activity's token (it ended on the device).")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String
        @Argument var activity: String

        func run() async throws {
            _ = try await options.client.send("DELETE", "/v1/apps/\(app)/devices/\(device)/activities/\(activity)")
            if !options.json { print("activity \(activity) deleted") }
        }
    }

    static func table(_ activities: [[String: Any]]) -> String {
        var table = Table("ACTIVITY", "ATTRIBUTES TYPE", "TOKEN")
        for item in activities {
            table.add(cell(item["activity"]), cell(item["attributesType"]), cell(item["token"]))
        }
        return table.render()
    }
}
