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
        @Option(name: .customLong("push-to-start"),
                help: "TYPE=HEX: the push-to-start token of an ActivityAttributes type; repeat for several.")
        var pushToStart: [String] = []

        func validate() throws {
            _ = try pushToStartTokens()
        }

        /// `--push-to-start` as the body's `pushToStartTokens` object, keyed by attributes type.
        func pushToStartTokens() throws -> [String: String] {
            var tokens: [String: String] = [:]
            for pair in pushToStart {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex, pair.index(after: equals) != pair.endIndex else {
                    throw ValidationError("--push-to-start takes TYPE=HEX, e.g. MatchAttributes=80f2…, not '\(pair)'")
                }
                tokens[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            return tokens
        }

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
            if !pushToStart.isEmpty { body["pushToStartTokens"] = try pushToStartTokens() }
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
            // Live Activity addresses: `herald activity list` shows the running activities' tokens.
            if let tokens = object["pushToStartTokens"] as? [String: Any], !tokens.isEmpty {
                print("push-to-start: \(tokens.keys.sorted().map { "\($0)=\(cell(tokens[$0]))" }.joined(separator: ", "))")
            }
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
