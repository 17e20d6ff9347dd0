import ArgumentParser
import HeraldClient

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
            try await options.perform { client in
                let channel = try await client.createChannel(app: app, name: name, messageStoragePolicy: messageStoragePolicy)
                if options.json { return try JSONOutput.print(channel) }
                print("channel \(name) created (APNs channel id \(channel.apnsChannelId), message storage policy \(channel.messageStoragePolicy))")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's channels.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Flag(help: "Also ask APNs whether it still knows each channel.") var refresh = false

        func run() async throws {
            try await options.perform { client in
                // Every page, each asked with --refresh as given.
                let channels = try await collect(PageSequence { limit, cursor in
                    try await client.channels(app: app, refresh: refresh, limit: limit, cursor: cursor)
                })
                if options.json { return try JSONOutput.printListing(channels, legacyKey: "channels") }
                print(ChannelCommand.table(channels, refreshed: refresh))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a channel.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var name: String
        @Flag(help: "Also ask APNs whether it still knows the channel, and its storage policy there.") var refresh = false

        func run() async throws {
            try await options.perform { client in
                let channel = try await client.channel(app: app, name: name, refresh: refresh)
                if options.json { return try JSONOutput.print(channel) }
                print(ChannelCommand.table([channel], refreshed: refresh, apnsPolicy: refresh))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel on APNs, with its scheduled broadcasts.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var name: String

        func run() async throws {
            try await options.perform { client in
                try await client.deleteChannel(app: app, name: name)
                if !options.json { print("channel \(name) deleted") }
            }
        }
    }

    /// `refreshed` adds what APNs answered: ON APNS, and for one channel its storage policy there.
    static func table(_ channels: [BroadcastChannel], refreshed: Bool, apnsPolicy: Bool = false) -> String {
        var headers = ["NAME", "APNS CHANNEL ID", "STORAGE POLICY"]
        if refreshed { headers.append("ON APNS") }
        if apnsPolicy { headers.append("APNS STORAGE POLICY") }
        var table = Table(headers: headers)
        for item in channels {
            var row = [item.name, item.apnsChannelId, String(item.messageStoragePolicy)]
            if refreshed { row.append(item.onApns == true ? "yes" : "no") }
            if apnsPolicy { row.append(cell(item.apnsMessageStoragePolicy)) }
            table.add(row)
        }
        return table.render()
    }
}
