import Foundation
import HeraldCore

/// What the operator lets push settings name, checked for every caller, admins included.
///
/// - `credentialsDirectory`: every file (key, certificate, CA) must resolve, symlinks followed,
///   to a path inside it.
/// - `allowedEnvironments`: the custom `https://host:port` environments allowed; nil allows any.
public struct PushCredentialPolicy: Sendable, Equatable {
    public var credentialsDirectory: String?
    public var allowedEnvironments: [String]?

    public init(credentialsDirectory: String? = nil, allowedEnvironments: [String]? = nil) {
        self.credentialsDirectory = credentialsDirectory
        self.allowedEnvironments = allowedEnvironments
    }

    /// Refuses settings that name a file outside the credentials directory
    /// (`credentialPathNotAllowed`) or a custom host not on the list (`pushEnvironmentNotAllowed`).
    public func check(_ settings: PushSettings) throws(HeraldError) {
        if settings.usesCustomEnvironment, let allowedEnvironments {
            let endpoint = try settings.endpoint()
            let wanted = Self.hostAndPort(endpoint.host, endpoint.port)
            guard allowedEnvironments.contains(where: { Self.normalised($0) == wanted }) else {
                throw .invalid(.pushEnvironmentNotAllowed,
                               "push.environment \(settings.environment) is not among the configured push.allowedEnvironments")
            }
        }
        try check(files: settings.filePaths)
    }

    /// Refuses a file outside the credentials directory, when one is configured.
    public func check(files: [String]) throws(HeraldError) {
        if let credentialsDirectory {
            let root = Self.resolved(credentialsDirectory)
            for path in files {
                let target = Self.resolved(path)
                guard target.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
                    throw .invalid(.credentialPathNotAllowed,
                                   "\(path) is not inside the configured push.credentialsDir")
                }
            }
        }
    }

    /// `host:port` for an entry given as `https://host[:port]` or `host:port`.
    public static func normalised(_ entry: String) -> String? {
        let text = entry.contains("://") ? entry : "https://" + entry
        guard let url = URL(string: text), url.scheme == "https", let host = url.host, !host.isEmpty else { return nil }
        return hostAndPort(host, url.port ?? 443)
    }

    static func hostAndPort(_ host: String, _ port: Int) -> String { "\(host.lowercased()):\(port)" }

    /// The absolute path with every symlink followed; for a file that does not exist, its
    /// directory resolved and its name kept, so `..` tricks still resolve.
    static func resolved(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        func text(_ buffer: [CChar]) -> String {
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        if realpath(absolute, &buffer) != nil { return text(buffer) }
        let url = URL(fileURLWithPath: absolute).standardizedFileURL
        let directory = url.deletingLastPathComponent().path
        if realpath(directory, &buffer) != nil { return text(buffer) + "/" + url.lastPathComponent }
        return url.path
    }
}
