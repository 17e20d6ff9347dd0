import ArgumentParser
import Foundation
import HeraldClient

/// `herald backup --to FILE`: an online copy of the server's SQLite store, written by the server.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the server's store to a file while it keeps serving (admin key).",
        discussion: """
            The server writes the copy itself, so FILE is a path on the server's machine; a relative \
            FILE is made absolute against this command's working directory. The file must not exist \
            (the server never overwrites: backupDestinationExists). The copy is checked with \
            PRAGMA integrity_check before the command returns. A server on PostgreSQL refuses \
            (backupNotSupported): back it up with pg_dump.
            """)

    @OptionGroup var options: ClientOptions
    @Option(help: "The file to write, on the server's machine.") var to: String

    func validate() throws {
        if to.isEmpty { throw ValidationError("--to needs a file name") }
    }

    func run() async throws {
        let path = URL(fileURLWithPath: to).standardizedFileURL.path
        try await options.perform { client in
            let result = try await client.backup(to: path)
            if options.json { return try JSONOutput.print(result) }
            print("backed up to \(result.path) (\(result.bytes) bytes, \(result.pages) pages, integrity \(result.integrity))")
        }
    }
}
