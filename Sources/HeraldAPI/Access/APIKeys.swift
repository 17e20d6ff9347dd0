import Foundation
import HeraldCrypto

/// The configured API keys, kept only as SHA-256 digests and compared in constant time, so
/// neither a log line nor a timing difference gives a key away.
public struct APIKeys: Sendable {
    private struct Entry: Sendable {
        var digest: [UInt8]
        var principal: Principal
    }

    private let entries: [Entry]

    public init(adminKeys: [String], appKeys: [(app: String, key: String)], metricsKeys: [String] = []) {
        entries = adminKeys.map { Entry(digest: SHA256.hash(Array($0.utf8)), principal: .admin) }
            + appKeys.map { Entry(digest: SHA256.hash(Array($0.key.utf8)), principal: .app($0.app)) }
            + metricsKeys.map { Entry(digest: SHA256.hash(Array($0.utf8)), principal: .metrics) }
    }

    /// No admin or app keys: the server is loopback-only and unauthenticated. Metrics keys
    /// alone protect nothing but `/metrics`, so they do not count.
    public var isEmpty: Bool { !entries.contains { $0.principal != .metrics } }

    /// The caller a presented key belongs to, or nil. Every entry is compared, match or not.
    public func principal(for key: String) -> Principal? {
        let digest = SHA256.hash(Array(key.utf8))
        var found: Principal?
        for entry in entries where ConstantTime.equals(entry.digest, digest) && found == nil {
            found = entry.principal
        }
        return found
    }
}
