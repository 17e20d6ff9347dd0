import ArgumentParser
import Foundation
import HeraldClient

/// `herald hook`: define, list and delete signed inbound hooks, and sign or send test deliveries.
struct HookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hook", abstract: "Define, list, sign and send signed inbound webhooks.",
        subcommands: [Put.self, Show.self, List.self, Delete.self, Sign.self, Send.self])

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
            let definition: HookDefinition
            do {
                definition = try JSONDecoder().decode(HookDefinition.self, from: try HookCommand.body(file))
            } catch {
                throw ValidationError(#"--file must hold a hook definition: {"app", "secrets": [...], "template": {...}} (\#(error))"#)
            }
            try await options.perform { client in
                let hook = try await client.putHook(name, definition)
                if options.json { return try JSONOutput.print(hook.value) }
                print("hook \(name) \(hook.created ? "created" : "updated") for app \(hook.app)")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a hook, its secrets counted (admin key).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Hook name.") var name: String

        func run() async throws {
            try await options.perform { client in
                let hook = try await client.hook(name)
                if options.json { return try JSONOutput.print(hook) }
                print(HookCommand.table([hook]))
                print("template: \(JSONOutput.text(hook.template))")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the hooks, walking every page (admin key).",
            discussion: "--json prints {\"items\": [...]}.")
        @OptionGroup var options: ClientOptions
        @Option(help: "Stop after this many hooks.") var limit: Int?

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        }

        func run() async throws {
            try await options.perform { client in
                let hooks = try await collect(client.allHooks(), limit: limit)
                if options.json { return try JSONOutput.print(["items": hooks]) }
                print(HookCommand.table(hooks))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a hook (admin key).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Hook name.") var name: String

        func run() async throws {
            try await options.perform { client in
                try await client.deleteHook(name)
                if !options.json { print("hook \(name) deleted") }
            }
        }
    }

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the Herald-Signature header for a body.")
        @Option(help: "The hook's secret (default: $HERALD_HOOK_SECRET).") var secret: String?
        @Option(help: "Body file, or - for standard input.") var body: String
        @Option(help: "Unix seconds to sign with (default: now).") var timestamp: Int?

        func run() throws {
            let bytes = try HookCommand.body(body)
            let when = timestamp.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
            let header = HookSignature.header(secrets: [try HookCommand.secret(secret)], timestamp: when, body: bytes)
            print("\(HookSignature.headerName): \(header)")
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
            let secret = try HookCommand.secret(secret)
            try await options.perform { client in
                let reply = try await client.sendHook(name, body: bytes, secret: secret, idempotencyKey: idempotencyKey)
                if options.json { return try JSONOutput.print(reply) }
                if reply.filtered { return print("filtered: the template's filter did not match; nothing pushed") }
                var table = Table("TOKEN", "DEVICE", "STATUS", "APNS-ID", "REASON")
                for row in reply.results {
                    table.add(cell(row.token), cell(row.device), String(row.status), cell(row.apnsId), cell(row.reason))
                }
                print(table.render())
            }
        }
    }

    static func table(_ hooks: [Hook]) -> String {
        var table = Table("NAME", "APP", "SECRETS", "TOLERANCE (S)")
        for hook in hooks {
            table.add(hook.name, hook.app, String(hook.secrets), cell(hook.toleranceSeconds))
        }
        return table.render()
    }
}
