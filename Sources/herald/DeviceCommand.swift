import ArgumentParser
import Foundation
import HeraldClient

/// `herald device put|show|list|delete APP [DEVICE]`.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Register, show, list or delete devices.",
        subcommands: [Put.self, Show.self, List.self, Delete.self])

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
            var subscription: WebPushSubscription?
            if let webPush {
                guard let data = FileManager.default.contents(atPath: webPush),
                      let decoded = try? JSONDecoder().decode(WebPushSubscription.self, from: data) else {
                    throw ValidationError("--web-push must name a file holding the subscription's JSON")
                }
                subscription = decoded
            }
            let registration = DeviceRegistration(
                timeZone: timeZone, platform: platform.map(Platform.init(rawValue:)), token: token, voipToken: voipToken,
                fcmToken: fcmToken, webPush: subscription, locale: locale,
                backgroundModes: backgroundModes.isEmpty ? nil : backgroundModes.map(BackgroundMode.init(rawValue:)),
                pushToStartTokens: pushToStart.isEmpty ? nil : try pushToStartTokens())
            try await options.perform { client in
                let stored = try await client.putDevice(app: app, device: device, registration)
                if options.json { return try JSONOutput.print(stored.value) }
                print("device \(device) \(stored.created ? "created" : "updated") (time zone \(stored.timeZone))")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a device.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String

        func run() async throws {
            try await options.perform { client in
                let shown = try await client.device(app: app, device: device)
                if options.json { return try JSONOutput.print(shown) }
                print(DeviceCommand.table([shown]))
                // Live Activity addresses: `herald activity list` shows the running activities' tokens.
                let tokens = shown.pushToStartTokens
                if !tokens.isEmpty {
                    print("push-to-start: \(tokens.keys.sorted().map { "\($0)=\(tokens[$0]!)" }.joined(separator: ", "))")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an app's devices, walking every page.",
            discussion: "--json prints {\"items\": [...]}.")
        @OptionGroup var options: ClientOptions
        @Option(help: "App bundle id (default: $HERALD_APP).") var app: String?
        @Option(help: "Only devices of this platform: ios, android or web.") var platform: String?
        @Option(help: "Only devices in this lifecycle state (notRunning, inactive, active, background, suspended).")
        var state: String?
        @Option(help: "Stop after this many devices.") var limit: Int?

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
            if let platform, !Platform.allCases.map(\.rawValue).contains(platform) {
                throw ValidationError("--platform takes ios, android or web, not '\(platform)'")
            }
        }

        func run() async throws {
            guard let app = app ?? ProcessInfo.processInfo.environment["HERALD_APP"] else {
                throw ValidationError("--app is required")
            }
            try await options.perform { client in
                let devices = try await collect(
                    client.allDevices(app: app, platform: platform.map(Platform.init(rawValue:)),
                                      state: state.map(LifecycleState.init(rawValue:))),
                    limit: limit)
                if options.json { return try JSONOutput.print(["items": devices]) }
                print(DeviceCommand.table(devices))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a device and its notifications.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String
        @Argument var device: String

        func run() async throws {
            try await options.perform { client in
                try await client.deleteDevice(app: app, device: device)
                if !options.json { print("device \(device) deleted") }
            }
        }
    }

    /// One row per device: where it is and the address its platform's push service knows it by.
    static func table(_ devices: [Device]) -> String {
        var table = Table("DEVICE", "PLATFORM", "TIME ZONE", "STATE", "ADDRESS", "LOCALE")
        for device in devices {
            let address: String? = switch device.platform {
            case .android: device.fcmToken
            case .web: device.webPush?.endpoint
            default: device.token
            }
            table.add(device.id, device.platform.rawValue, device.timeZone, device.state.rawValue, cell(address), cell(device.locale))
        }
        return table.render()
    }
}
