import ArgumentParser
import Foundation

/// `herald device put|show|delete APP DEVICE`.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Register, show or delete a device.",
        subcommands: [Put.self, Show.self, Delete.self])

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create or update a device registration.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "App bundle id.") var app: String
        @Argument(help: "Device id.") var device: String
        @Option(help: "IANA time zone the device is in, e.g. Europe/Paris.") var timeZone: String
        @Option(help: "ios (APNs), android (FCM) or web (Web Push); ios by default.") var platform: String?
        @Option(help: "APNs device token (hex).") var token: String?
        @Option(help: "FCM registration token, for --platform android.") var fcmToken: String?
        @Option(help: "A file holding the browser's PushSubscription.toJSON(), for --platform web.") var webPush: String?
        @Option(help: "APNs VoIP token (hex).") var voipToken: String?
        @Option(help: "Locale, e.g. fr_FR.") var locale: String?
        @Option(name: .customLong("background-mode"), help: "remote-notification, voip or fetch; repeat for several.")
        var backgroundModes: [String] = []

        func run() async throws {
            var body: [String: Any] = ["timeZone": timeZone]
            if let platform { body["platform"] = platform }
            if let token { body["token"] = token }
            if let fcmToken { body["fcmToken"] = fcmToken }
            if let webPush {
                guard let data = FileManager.default.contents(atPath: webPush),
                      let subscription = try? JSONSerialization.jsonObject(with: data) else {
                    throw ValidationError("--web-push must name a file holding the subscription's JSON")
                }
                body["webPush"] = subscription
            }
            if let voipToken { body["voipToken"] = voipToken }
            if let locale { body["locale"] = locale }
            if !backgroundModes.isEmpty { body["backgroundModes"] = backgroundModes }
            let reply = try await options.client.send("PUT", "/v1/apps/\(app)/devices/\(device)", json: body)
            if options.json { return reply.printJSON() }
            print("device \(device) \(reply.status == 201 ? "created" : "updated") (time zone \(timeZone))")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a device.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String

        func run() async throws {
            let reply = try await options.client.send("GET", "/v1/apps/\(app)/devices/\(device)")
            if options.json { return reply.printJSON() }
            let object = reply.object
            var table = Table("DEVICE", "PLATFORM", "TIME ZONE", "STATE", "ADDRESS", "LOCALE")
            // The address its platform's push service knows it by.
            let address: Any? = switch object["platform"] as? String {
            case "android": object["fcmToken"]
            case "web": (object["webPush"] as? [String: Any])?["endpoint"]
            default: object["token"]
            }
            table.add(cell(object["id"]), cell(object["platform"]), cell(object["timeZone"]), cell(object["state"]), cell(address),
                      cell(object["locale"]))
            print(table.render())
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a device and its notifications.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String

        func run() async throws {
            _ = try await options.client.send("DELETE", "/v1/apps/\(app)/devices/\(device)")
            if !options.json { print("device \(device) deleted") }
        }
    }
}
