import ArgumentParser

/// `herald channel create|list|show|delete APP [NAME]`: iOS 18 broadcast channels, which the
/// server creates on APNs and keeps by the app's own name.
struct ChannelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel", abstract: "Create, list, show or delete a Live Activity broadcast channel.",
        discussion: """
            Schedule broadcasts with `herald schedule --channel NAME --live-activity update|end`, or \
            send one now with `herald push --channel NAME --live-activity update|end`.
            """,
        subcommands: [Create.self, List.self, Show.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel on APNs.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "App bundle id.") var app: String
        @Argument(help: "Channel name, e.g. match-42.") var name: String
        @Option(help: "0: APNs stores nothing for offline devices (default); 1: it keeps the latest broadcast.")
        var messageStoragePolicy: Int?

        func run() async throws {
            var body: [String: Any] = ["name": name]
            if let messageStoragePolicy { body["messageStoragePolicy"] = messageStoragePolicy }
            let reply = try await options.client.send("POST", "/v1/apps/\(app)/channels", json: body)
            if options.json { return reply.printJSON() }
            let object = reply.object
            print("channel \(name) created (APNs channel id \(cell(object["apnsChannelId"])), message storage policy \(cell(object["messageStoragePolicy"])))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's channels.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Flag(help: "Also ask APNs whether it still knows each channel.") var refresh = false

        func run() async throws {
            let reply = try await options.client.send("GET", "/v1/apps/\(app)/channels\(refresh ? "?refresh=true" : "")")
            if options.json { return reply.printJSON() }
            print(ChannelCommand.table(reply.object["channels"] as? [[String: Any]] ?? [], refreshed: refresh))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a channel.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var name: String
        @Flag(help: "Also ask APNs whether it still knows the channel, and its storage policy there.") var refresh = false

        func run() async throws {
            let reply = try await options.client.send("GET", "/v1/apps/\(app)/channels/\(name)\(refresh ? "?refresh=true" : "")")
            if options.json { return reply.printJSON() }
            print(ChannelCommand.table([reply.object], refreshed: refresh, apnsPolicy: refresh))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel on APNs, with its scheduled broadcasts.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var name: String

        func run() async throws {
            _ = try await options.client.send("DELETE", "/v1/apps/\(app)/channels/\(name)")
            if !options.json { print("channel \(name) deleted") }
        }
    }

    /// `refreshed` adds what APNs answered: ON APNS, and for one channel its storage policy there.
    static func table(_ channels: [[String: Any]], refreshed: Bool, apnsPolicy: Bool = false) -> String {
        var headers = ["NAME", "APNS CHANNEL ID", "STORAGE POLICY"]
        if refreshed { headers.append("ON APNS") }
        if apnsPolicy { headers.append("APNS STORAGE POLICY") }
        var table = Table(headers: headers)
        for item in channels {
            var row = [cell(item["name"]), cell(item["apnsChannelId"]), cell(item["messageStoragePolicy"])]
            if refreshed { row.append((item["onApns"] as? Bool ?? false) ? "yes" : "no") }
            if apnsPolicy { row.append(cell(item["apnsMessageStoragePolicy"])) }
            table.add(row)
        }
        return table.render()
    }
}
