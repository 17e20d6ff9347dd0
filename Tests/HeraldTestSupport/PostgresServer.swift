import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for one test: `initdb` into a temp dir as an unprivileged user (the
/// `postgres` account when the tests run as root), `pg_ctl start` on a free loopback port with
/// its socket in that dir, and `stop()` to shut it down and remove everything.
///
/// Starting fails loudly (it throws): tests that need PostgreSQL never skip. `scripts/install-deps.sh`
/// installs Debian's `postgresql` package.
public final class PostgresServer: Sendable {
    public static let user = "herald"

    public let port: Int
    public let directory: String
    private let binaries: String
    private let runAs: String?

    /// A database URL for `database` on this server, created with ``createDatabase(_:)``.
    public func url(database: String = "herald") -> String {
        "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)"
    }

    private init(port: Int, directory: String, binaries: String, runAs: String?) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.runAs = runAs
    }

    /// Starts a server with a `herald` database.
    ///
    /// - Parameter settings: more server settings, each passed as `-c name=value` at start (a
    ///   benchmark preloads `pg_stat_statements` this way; `shared_preload_libraries` can only be
    ///   set when the server starts).
    /// - Throws: ``PostgresServerError`` naming the step that failed, with its output.
    public static func start(settings: [(name: String, value: String)] = []) throws -> PostgresServer {
        let binaries = try findBinaries()
        let runAs: String? = geteuid() == 0 ? "postgres" : nil
        var template = Array("/tmp/herald-pg.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresServerError("mkdtemp failed") }
        let directory = String(cString: made)
        if let runAs {
            guard let account = getpwnam(runAs) else {
                throw PostgresServerError("no '\(runAs)' account to run PostgreSQL as (install Debian's postgresql package)")
            }
            chown(directory, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        var lastError: Error = PostgresServerError("no port tried")
        for _ in 0..<3 {
            let server = PostgresServer(port: try unusedLoopbackPort(), directory: directory, binaries: binaries, runAs: runAs)
            do {
                try server.initialize()
                try server.run("pg_ctl", ["-D", server.dataDirectory, "-l", "\(directory)/server.log", "-w", "-t", "30",
                                          "-o", "-p \(server.port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off "
                                              + "-c synchronous_commit=off -c full_page_writes=off"
                                              + settings.map { " -c \($0.name)=\($0.value)" }.joined(), "start"])
                try server.run("psql", ["-h", "127.0.0.1", "-p", "\(server.port)", "-U", user, "-d", "postgres",
                                        "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE herald"])
                return server
            } catch {
                lastError = error
                server.stopServer()
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw lastError
    }

    /// Creates another empty database on this server.
    public func createDatabase(_ name: String) throws {
        try run("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", "postgres", "-v", "ON_ERROR_STOP=1",
                         "-c", "CREATE DATABASE \"\(name)\""])
    }

    /// Runs one SQL statement with psql; returns its rows, one per line, columns split at `|`.
    public func query(_ sql: String, database: String = "herald") throws -> [[String]] {
        try run("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-v", "ON_ERROR_STOP=1",
                         "-A", "-t", "-c", sql])
            .split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Stops the server at once and removes its files.
    public func stop() {
        stopServer()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private var dataDirectory: String { "\(directory)/data" }

    private func initialize() throws {
        guard !FileManager.default.fileExists(atPath: dataDirectory) else { return }
        try run("initdb", ["-D", dataDirectory, "-U", Self.user, "--auth=trust", "-E", "UTF8", "--no-sync",
                           "--no-instructions"])
    }

    private func stopServer() {
        _ = try? run("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
    }

    /// Runs one of PostgreSQL's programs (as the unprivileged account when there is one).
    @discardableResult
    private func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = SpawnedProcess()
        let tool = "\(binaries)/\(program)"
        if let runAs {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", runAs, "--", tool] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
        }
        // To a file, not a pipe: the server pg_ctl starts inherits the descriptors and would hold
        // a pipe open for as long as it runs.
        let outputPath = "\(directory)/\(program)-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        guard let output = FileHandle(forWritingAtPath: outputPath) else {
            throw PostgresServerError("cannot write \(outputPath)")
        }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try? output.close()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw PostgresServerError("\(program) exited \(process.terminationStatus): \(text.suffix(2000))")
        }
        return text
    }

    /// The directory holding initdb, pg_ctl and psql: the newest under /usr/lib/postgresql.
    private static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        throw PostgresServerError("PostgreSQL is not installed (no \(root)/*/bin/initdb): apt-get install postgresql")
    }
}

public struct PostgresServerError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
