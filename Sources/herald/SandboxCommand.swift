import ArgumentParser
import Dispatch
import Foundation
import HeraldCore
import HeraldSandbox
import Logging

/// `herald sandbox`: a local APNs look-alike for development, with an inbox per device token.
/// `run` (the default) serves; `inbox` and `faults` talk to a running sandbox's admin API.
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Run an APNs-compatible HTTP/2 TLS server for development, or inspect one.",
        subcommands: [Run.self, Inbox.self, Subscribe.self, Faults.self],
        defaultSubcommand: Run.self)

    /// Where `inbox` and `faults` find the admin API.
    struct AdminOptions: ParsableArguments {
        @Option(help: "Admin API URL (default: $HERALD_SANDBOX_ADMIN, else http://127.0.0.1:2198).")
        var admin: String?

        @Flag(help: "Print the admin API's JSON instead of a table.")
        var json = false

        var client: SandboxAdminClient {
            SandboxAdminClient(baseURL: admin ?? ProcessInfo.processInfo.environment["HERALD_SANDBOX_ADMIN"]
                         ?? "http://127.0.0.1:\(SandboxConfiguration.defaultAdminPort)")
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Serve APNs on HTTP/2 + TLS with the dev certificates, until SIGINT or SIGTERM.")

        @Option(help: "Address for APNs clients, HOST:PORT (port 0 picks a free one).")
        var listen = "127.0.0.1:\(SandboxConfiguration.defaultPort)"

        @Option(help: "Address of the admin API, HOST:PORT on loopback.")
        var admin = "127.0.0.1:\(SandboxConfiguration.defaultAdminPort)"

        @Option(help: "Directory with sandbox-server.pem/.key, dev-ca.pem and dev-apns-key.pub.pem.")
        var certs = "Certs"

        @Option(name: .customLong("trust-key"),
                help: "Trust a token key, KEYID=PUBLIC-KEY-PEM; repeatable. When given, replaces the default DEVKEY0001.")
        var trustKeys: [String] = []

        @Option(help: "JSON file with the faults to start with (the admin API's PUT /faults shape).")
        var faults: String?

        @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
        var logLevel = "info"

        func run() async throws {
            var configuration = SandboxConfiguration(certificatesDirectory: certs)
            (configuration.host, configuration.port) = try Self.address(listen, option: "--listen")
            (configuration.adminHost, configuration.adminPort) = try Self.address(admin, option: "--admin")
            if !trustKeys.isEmpty {
                configuration.trustedKeys = [:]
                for entry in trustKeys {
                    let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                        throw ValidationError("--trust-key takes KEYID=PATH, not \(entry)")
                    }
                    configuration.trustedKeys[parts[0]] = parts[1]
                }
            }
            if let faults {
                do {
                    configuration.faults = try JSONDecoder().decode(SandboxFaults.self, from: Data(contentsOf: URL(fileURLWithPath: faults)))
                } catch {
                    throw ValidationError("cannot read faults from \(faults): \(error)")
                }
            }
            let level = Logger.Level(rawValue: logLevel) ?? .info
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            let gateway = SandboxGateway(configuration: configuration, logger: Logger(label: "herald.sandbox"))
            // Signals are caught before starting, so one that arrives during start-up is not lost.
            let signals = TerminationSignals()
            try await gateway.start()
            // A stable line on stdout, so scripts and tests can learn the bound ports.
            let line = "herald sandbox listening on https://\(Self.hostForURL(configuration.host)):\(gateway.port)"
                + " (admin http://\(Self.hostForURL(configuration.adminHost)):\(gateway.adminPort))\n"
            FileHandle.standardOutput.write(Data(line.utf8))
            await signals.next()
            await gateway.shutdown(gracePeriod: .seconds(2))
        }

        /// `HOST:PORT`, `[IPv6]:PORT`, or just `PORT` on 127.0.0.1.
        static func address(_ text: String, option: String) throws -> (String, Int) {
            if let port = Int(text) { return ("127.0.0.1", port) }
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                  (0...65_535).contains(port) else {
                throw ValidationError("\(option) takes HOST:PORT, not \(text)")
            }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return (host.isEmpty ? "127.0.0.1" : host, port)
        }

        static func hostForURL(_ host: String) -> String {
            host.contains(":") ? "[\(host)]" : host
        }
    }

    struct Inbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inbox",
            abstract: "Show what a device token received from a running sandbox (without TOKEN: counts per token).",
            discussion: "--fcm and --web-push show another channel's messages; --activity TOKEN a Live Activity timeline, --channel ID a broadcast channel's broadcasts, --channels BUNDLE an app's broadcast channels.")

        @OptionGroup var options: AdminOptions
        @Argument(help: "Device token (hex).") var token: String?
        @Option(help: "Show what this FCM registration token received instead.") var fcm: String?
        @Option(help: "Show what this Web Push subscription received, decrypted: its id, its endpoint, or a file holding its JSON.")
        var webPush: String?
        @Option(help: "Show this device token's Live Activity timeline (its liveactivity pushes) instead.")
        var activity: String?
        @Option(help: "Show what was broadcast on this channel (its apns-channel-id) instead.")
        var channel: String?
        @Option(help: "List this app's broadcast channels (by bundle id) instead.")
        var channels: String?

        func run() async throws {
            let client = options.client
            if let activity { return try await showActivity(activity, client: client) }
            if let channel { return try await showBroadcasts(channel, client: client) }
            if let channels { return try await showChannels(channels, client: client) }
            if let address = fcm ?? webPush.map(Self.subscriptionID) {
                let reply = try await client.send("GET", fcm != nil ? "/fcm/inbox/\(address)" : "/webpush/inbox/\(address)")
                if options.json { return reply.printJSON() }
                let messages = reply.object["messages"] as? [[String: Any]] ?? []
                if messages.isEmpty { return print("no messages received by \(address)") }
                var table = Table("RECEIVED", "ID", "TITLE", "BODY")
                for entry in messages {
                    let message = entry["message"] as? [String: Any] ?? [:]
                    // FCM keeps the alert under "notification"; a Web Push payload has it at the top.
                    let alert = message["notification"] as? [String: Any] ?? message
                    let received = (entry["receivedAt"] as? Double).map { RFC3339.string(from: Date(timeIntervalSinceReferenceDate: $0)) }
                    table.add(cell(received), cell(entry["id"]), cell(alert["title"]), cell(alert["body"]))
                }
                return print(table.render())
            }
            guard let token else {
                let reply = try await client.send("GET", "/inbox")
                if options.json { return reply.printJSON() }
                let counts = reply.object["counts"] as? [String: Int] ?? [:]
                if counts.isEmpty { return print("no notifications received") }
                var table = Table("TOKEN", "COUNT")
                for (token, count) in counts.sorted(by: { $0.key < $1.key }) { table.add(token, String(count)) }
                return print(table.render())
            }
            let reply = try await client.send("GET", "/inbox/\(token)")
            if options.json { return reply.printJSON() }
            struct Inbox: Decodable { var notifications: [InboxEntry] }
            let entries = try JSONDecoder().decode(Inbox.self, from: reply.body).notifications
            if entries.isEmpty { return print("no notifications received by \(token)") }
            var table = Table("RECEIVED", "APNS-ID", "TYPE", "TOPIC", "ALERT")
            for entry in entries {
                table.add(RFC3339.string(from: entry.receivedAt), entry.apnsId, entry.pushType.rawValue, entry.topic, entry.alertSummary)
            }
            print(table.render())
        }

        /// The Live Activity timeline: one row per start, update and end, in arrival order.
        func showActivity(_ token: String, client: SandboxAdminClient) async throws {
            let reply = try await client.send("GET", "/activities/\(token)")
            if options.json { return reply.printJSON() }
            struct Timeline: Decodable { var events: [ActivityEvent] }
            let events = try JSONDecoder().decode(Timeline.self, from: reply.body).events
            if events.isEmpty { return print("no Live Activity pushes received by \(token)") }
            var table = Table("RECEIVED", "EVENT", "TIMESTAMP", "APNS-ID", "ATTRIBUTES", "CONTENT-STATE", "ALERT")
            for event in events {
                table.add(RFC3339.string(from: event.receivedAt), event.event.rawValue, String(event.timestamp), event.apnsId,
                          event.attributesType ?? "-", Self.compact(event.contentState), Self.compact(event.alert))
            }
            print(table.render())
        }

        /// A channel's broadcasts. The id is base64, so it goes in the query, escaped.
        func showBroadcasts(_ channel: String, client: SandboxAdminClient) async throws {
            let escaped = channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? channel
            let reply = try await client.send("GET", "/broadcasts?channel=\(escaped)")
            if options.json { return reply.printJSON() }
            struct Broadcasts: Decodable { var broadcasts: [ActivityEvent] }
            let broadcasts = try JSONDecoder().decode(Broadcasts.self, from: reply.body).broadcasts
            if broadcasts.isEmpty { return print("nothing broadcast on \(channel)") }
            var table = Table("RECEIVED", "EVENT", "TIMESTAMP", "APNS-ID", "COLLAPSE-ID", "CONTENT-STATE")
            for event in broadcasts {
                table.add(RFC3339.string(from: event.receivedAt), event.event.rawValue, String(event.timestamp), event.apnsId,
                          event.collapseId ?? "-", Self.compact(event.contentState))
            }
            print(table.render())
        }

        /// An app's channels, with the policy each was created with.
        func showChannels(_ bundleID: String, client: SandboxAdminClient) async throws {
            let reply = try await client.send("GET", "/channels/\(bundleID)")
            if options.json { return reply.printJSON() }
            struct Channels: Decodable { var channels: [BroadcastChannelSummary] }
            let channels = try JSONDecoder().decode(Channels.self, from: reply.body).channels
            if channels.isEmpty { return print("no broadcast channels for \(bundleID)") }
            var table = Table("CHANNEL", "STORAGE-POLICY", "BROADCASTS")
            for channel in channels {
                table.add(channel.apnsChannelId, String(channel.messageStoragePolicy), String(channel.broadcasts))
            }
            print(table.render())
        }

        /// One-line JSON for a table cell, "-" when absent.
        static func compact(_ value: JSONValue?) -> String {
            guard let value else { return "-" }
            if case .string(let text) = value { return text }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "-"
        }

        /// A subscription id from an id, an endpoint (`…/wp/ID`), or a file holding the subscription's JSON.
        static func subscriptionID(_ text: String) -> String {
            var endpoint = text
            if let data = FileManager.default.contents(atPath: text),
               let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let found = object["endpoint"] as? String {
                endpoint = found
            }
            return endpoint.split(separator: "/").last.map(String.init) ?? endpoint
        }
    }

    struct Subscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscribe",
            abstract: "Get a Web Push subscription from a running sandbox, as a browser's PushSubscription.toJSON().",
            discussion: "Pass the JSON to `herald device put ... --platform web --web-push FILE`. A --fault prefix (gone, notfound, toolarge, quota, unavailable) makes the sandbox answer that way.")

        @OptionGroup var options: AdminOptions
        @Option(help: "A fault for this subscription: gone, notfound, toolarge, quota or unavailable.") var fault: String?

        func run() async throws {
            let reply = try await options.client.send("POST", "/webpush/subscriptions", json: ["prefix": fault ?? ""])
            reply.printJSON()
        }
    }

    struct Faults: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "faults",
            abstract: "Show a running sandbox's faults, or replace them with --set.")

        @OptionGroup var options: AdminOptions
        @Option(help: #"Faults JSON to put in effect, e.g. '{"unregistered":["ab12"],"tooManyRequestsRate":0.1}'."#)
        var set: String?

        func run() async throws {
            let client = options.client
            let reply: SandboxAdminClient.Reply
            if let set {
                guard let object = (try? JSONSerialization.jsonObject(with: Data(set.utf8))) as? [String: Any] else {
                    throw ValidationError("--set takes a JSON object")
                }
                reply = try await client.send("PUT", "/faults", json: object)
            } else {
                reply = try await client.send("GET", "/faults")
            }
            reply.printJSON()
        }
    }
}

/// Waits for SIGINT or SIGTERM. The default actions are turned off so the sandbox can shut
/// down cleanly instead of dying mid-response.
private struct TerminationSignals {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.stream = stream
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    func next() async {
        for await _ in stream { return }
    }
}
