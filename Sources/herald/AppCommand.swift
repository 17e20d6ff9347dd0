import ArgumentParser

/// `herald app put|show|delete APP`.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app", abstract: "Register, show or delete an app.",
        subcommands: [Put.self, Show.self, Delete.self])

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create or update an app.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Bundle id, e.g. com.example.alarm.") var app: String
        @Option(help: "At the 128 limit: reject (default) or keepSoonest.") var overflow: String?

        func run() async throws {
            var body: [String: Any] = [:]
            if let overflow { body["overflow"] = overflow }
            let reply = try await options.client.send("PUT", "/v1/apps/\(app)", json: body)
            if options.json { return reply.printJSON() }
            print("app \(app) \(reply.status == 201 ? "created" : "updated") (overflow: \(cell(reply.object["overflow"])))")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an app.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String

        func run() async throws {
            let reply = try await options.client.send("GET", "/v1/apps/\(app)")
            if options.json { return reply.printJSON() }
            print("app \(cell(reply.object["id"])) (overflow: \(cell(reply.object["overflow"])))")
            if let fcm = reply.object["fcm"] as? [String: Any] {
                print("fcm: project \(cell(fcm["projectId"])), service account \(cell(fcm["clientEmail"]))")
            }
            if let webPush = reply.object["webPush"] as? [String: Any] {
                print("web push: subject \(cell(webPush["subject"]))")
                // What a page passes to pushManager.subscribe as applicationServerKey.
                print("VAPID public key: \(cell(webPush["vapidPublicKey"]))")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an app with its devices and notifications.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String

        func run() async throws {
            _ = try await options.client.send("DELETE", "/v1/apps/\(app)")
            if !options.json { print("app \(app) deleted") }
        }
    }
}
