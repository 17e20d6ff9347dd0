import Foundation
import HeraldCore
import PostgresNIO

/// Where a PostgreSQL database is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, with the
/// password from the URL, a file, or `PGPASSWORD`, in that order.
///
/// ```swift
/// let location = try PostgresLocation(url: "postgres://herald@db.internal:5432/herald",
///                                     environment: ProcessInfo.processInfo.environment)
/// ```
public struct PostgresLocation: Hashable, Sendable {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Reads a storage URL.
    ///
    /// - Parameters:
    ///   - url: `postgres://` or `postgresql://`, with a user, a host and a database.
    ///   - passwordFile: read when the URL has no password (its text, trailing newline removed).
    ///   - environment: `PGPASSWORD` is the last place a password is looked for.
    /// - Throws: `invalidStorageURL` naming what is wrong; `unreadablePasswordFile`.
    public init(url: String, passwordFile: String? = nil, environment: [String: String] = [:]) throws(HeraldError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
              scheme == "postgres" || scheme == "postgresql" else {
            throw .invalid(.invalidStorageURL, "storage.url must look like postgres://USER[:PASSWORD]@HOST:PORT/DB")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .invalid(.invalidStorageURL, "storage.url has no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw .invalid(.invalidStorageURL, "storage.url has no user (postgres://USER@HOST/DB)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw .invalid(.invalidStorageURL, "storage.url names no database (postgres://USER@HOST/DB)")
        }
        var password = components.password
        if password == nil, let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw .invalid(.unreadablePasswordFile, "storage.passwordFile '\(passwordFile)' cannot be read")
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        if password == nil { password = environment["PGPASSWORD"] }
        self.init(host: host, port: components.port ?? 5432, user: user, password: password, database: database)
    }

    /// The URL without its password, for logs.
    public var redacted: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}

extension PostgresLocation {
    /// A single connection's settings (the pool has its own; a listener needs one of its own).
    var connectionConfiguration: PostgresConnection.Configuration {
        PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database,
                                         tls: .disable)
    }
}
