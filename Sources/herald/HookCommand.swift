import ArgumentParser
import Foundation
import HeraldCrypto

/// `herald hook`: define signed inbound hooks, and sign or send test deliveries.
struct HookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hook", abstract: "Define, sign and send signed inbound webhooks.",
        subcommands: [Put.self, Sign.self, Send.self])

    /// Secrets come from the flag or the environment; never echoed.
    static func secret(_ flag: String?) throws -> String {
        guard let secret = flag ?? ProcessInfo.processInfo.environment["HERALD_HOOK_SECRET"], !secret.isEmpty else {
            throw ValidationError("give --secret or set HERALD_HOOK_SECRET")
        }
        return secret
    }

    static func body(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create or replace a hook from a JSON definition (admin key).",
                                                        discussion: #"The file holds {"app", "secrets": [...], "template": {...}, "toleranceSeconds"?}."#)
        @OptionGroup var options: ClientOptions
        @Argument(help: "Hook name.") var name: String
        @Option(help: "Definition file (JSON), or - for standard input.") var file: String

        func run() async throws {
            let reply = try await options.client.send("PUT", "/v1/hooks/\(name)", body: try HookCommand.body(file))
            if options.json { return reply.printJSON() }
            print("hook \(name) \(reply.status == 201 ? "created" : "updated") for app \(cell(reply.object["app"]))")
        }
    }

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the Herald-Signature header for a body.")
        @Option(help: "The hook's secret (default: $HERALD_HOOK_SECRET).") var secret: String?
        @Option(help: "Body file, or - for standard input.") var body: String
        @Option(help: "Unix seconds to sign with (default: now).") var timestamp: Int?

        func run() throws {
            let bytes = try HookCommand.body(body)
            let header = WebhookSignature.sign(secret: try HookCommand.secret(secret),
                                               timestamp: timestamp ?? Int(Date().timeIntervalSince1970), body: Array(bytes))
            print("\(WebhookSignature.headerName): \(header)")
        }
    }

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign a body and POST it to /v1/hooks/NAME, for testing.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Hook name.") var name: String
        @Option(help: "The hook's secret (default: $HERALD_HOOK_SECRET).") var secret: String?
        @Option(help: "Body file, or - for standard input.") var body: String
        @Option(help: "Idempotency-Key header.") var idempotencyKey: String?

        func run() async throws {
            let bytes = try HookCommand.body(body)
            var headers = [WebhookSignature.headerName: WebhookSignature.sign(
                secret: try HookCommand.secret(secret), timestamp: Int(Date().timeIntervalSince1970), body: Array(bytes))]
            if let idempotencyKey { headers["Idempotency-Key"] = idempotencyKey }
            let reply = try await options.client.send("POST", "/v1/hooks/\(name)", body: bytes, headers: headers)
            if options.json { return reply.printJSON() }
            let object = reply.object
            if object["filtered"] as? Bool == true { return print("filtered: the template's filter did not match; nothing pushed") }
            var table = Table("TOKEN", "DEVICE", "STATUS", "APNS-ID", "REASON")
            for row in object["results"] as? [[String: Any]] ?? [] {
                table.add(cell(row["token"]), cell(row["device"]), cell(row["status"]), cell(row["apnsId"]), cell(row["reason"]))
            }
            print(table.render())
        }
    }
}
