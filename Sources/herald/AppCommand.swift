import ArgumentParser
import HeraldClient

/// `herald app put|show|list|delete [APP]`.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app", abstract: "Register, show, list or delete apps.",
        subcommands: [Put.self, Show.self, List.self, Delete.self])

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create or update an app.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Bundle id, e.g. com.example.alarm.") var app: String
        @Option(help: "At the 128 limit: reject (default) or keepSoonest.") var overflow: String?

        func run() async throws {
            try await options.perform { client in
                let stored = try await client.putApp(app, AppDefinition(overflow: overflow.map(OverflowPolicy.init(rawValue:))))
                if options.json { return try JSONOutput.print(stored.value) }
                print("app \(app) \(stored.created ? "created" : "updated") (overflow: \(stored.overflow))")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an app.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String

        func run() async throws {
            try await options.perform { client in
                let shown = try await client.app(app)
                if options.json { return try JSONOutput.print(shown) }
                print("app \(shown.id) (overflow: \(shown.overflow))")
                // Every channel's settings, one line each, "not configured" when absent.
                print(shown.push.map(Self.apnsLine) ?? "apns: not configured")
                print(shown.fcm.map(Self.fcmLine) ?? "fcm: not configured")
                if let webPush = shown.webPush {
                    print(Self.webPushLine(webPush))
                    // What a page passes to pushManager.subscribe as applicationServerKey.
                    print("VAPID public key: \(cell(webPush.vapidPublicKey))")
                } else {
                    print("web push: not configured")
                }
            }
        }

        // Secrets are never printed (the server masks them anyway): only what identifies them.
        static func apnsLine(_ push: PushSettings) -> String {
            var line = "apns: environment \(push.environment)"
            let auth = push.auth
            switch auth.type {
            case "token":
                line += ", token auth (team \(cell(auth.teamId)), key \(cell(auth.keyId))"
                if let keyFile = auth.keyFile { line += ", key file \(keyFile)" }
                line += ")"
            case "certificate":
                if let certFile = auth.certFile {
                    line += ", certificate auth (certificate file \(certFile))"
                } else {
                    line += auth.pkcs12 != nil ? ", certificate auth (PKCS#12 bundle)" : ", certificate auth (PEM certificate)"
                }
            default:
                line += ", \(auth.type) auth"
            }
            if let channels = push.channelsEnvironment { line += ", channels environment \(channels)" }
            if let caFile = push.caFile { line += ", CA file \(caFile)" }
            return line
        }

        static func fcmLine(_ fcm: FCMSettings) -> String {
            var line = "fcm: project \(cell(fcm.projectId)), service account \(cell(fcm.clientEmail))"
            if let file = fcm.serviceAccountFile { line += ", service account file \(file)" }
            if let endpoint = fcm.endpoint { line += ", endpoint \(endpoint)" }
            if let caFile = fcm.caFile { line += ", CA file \(caFile)" }
            return line
        }

        static func webPushLine(_ webPush: WebPushSettings) -> String {
            var line = "web push: subject \(webPush.subject)"
            if let hosts = webPush.allowedHosts { line += ", allowed hosts \(hosts.joined(separator: " "))" }
            if let caFile = webPush.caFile { line += ", CA file \(caFile)" }
            return line
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the apps the API key can see, walking every page.",
            discussion: "An admin key sees every app; an app key only its own. --json prints {\"items\": [...]}.")
        @OptionGroup var options: ClientOptions
        @Option(help: "Stop after this many apps.") var limit: Int?

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        }

        func run() async throws {
            try await options.perform { client in
                let apps = try await collect(client.allApps(), limit: limit)
                if options.json { return try JSONOutput.print(["items": apps]) }
                var table = Table("APP", "OVERFLOW", "APNS", "FCM", "WEB PUSH")
                for app in apps {
                    table.add(app.id, app.overflow.rawValue, cell(app.push?.environment), cell(app.fcm?.projectId),
                              cell(app.webPush?.subject))
                }
                print(table.render())
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an app with its devices and notifications.")
        @OptionGroup var options: ClientOptions
        @Argument var app: String

        func run() async throws {
            try await options.perform { client in
                try await client.deleteApp(app)
                if !options.json { print("app \(app) deleted") }
            }
        }
    }
}
