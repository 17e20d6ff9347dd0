import Foundation
import Synchronization

/// One ``ProviderTokenSource`` per signing key: every app and connection that signs with the
/// same team, key id and key shares one token.
///
/// APNs counts token renewals per key and answers `TooManyProviderTokenUpdates` past about one
/// every 20 minutes, so several apps on one key must not each sign their own token, and an app
/// whose push settings change (but not its key) keeps the token it had.
///
/// ```swift
/// let sources = ProviderTokenSources()
/// let tokens = try sources.source(teamID: "TEAM123456", keyID: "ABC123DEFG", pem: p8Text)
/// let jwt = try tokens.token(now: Date()).jwt
/// ```
public final class ProviderTokenSources: Sendable {
    private struct SigningKey: Hashable {
        var teamID: String
        var keyID: String
        /// SHA-256 of the key's PEM: a key replaced under the same id gets a source of its own.
        var digest: [UInt8]
    }

    private let sources = Mutex<[SigningKey: ProviderTokenSource]>([:])

    public init() {}

    /// Tokens signed so far by every source: it only grows, since sources are never dropped.
    public var signed: Int { sources.withLock { $0.values.reduce(0) { $0 + $1.renewals } } }

    /// The source for this key, made on first use.
    ///
    /// - Parameters:
    ///   - teamID: the Apple team the key belongs to (the token's `iss`).
    ///   - keyID: the key's id (the token's `kid`).
    ///   - pem: the key itself, a PKCS#8 EC P-256 PEM (an APNs `.p8` file's text).
    /// - Throws: the key's parse error when `pem` is not an EC P-256 key; nothing is kept then.
    public func source(teamID: String, keyID: String, pem: String) throws -> ProviderTokenSource {
        let signingKey = SigningKey(teamID: teamID, keyID: keyID, digest: SHA256.hash(Array(pem.utf8)))
        if let existing = sources.withLock({ $0[signingKey] }) { return existing }
        // Parsed outside the lock; if two callers race, the first stored wins and both use it.
        let made = ProviderTokenSource(key: try ES256Key(pem: pem), keyID: keyID, teamID: teamID)
        return sources.withLock { sources in
            if let existing = sources[signingKey] { return existing }
            sources[signingKey] = made
            return made
        }
    }

    /// How many signing keys have a source.
    public var count: Int { sources.withLock { $0.count } }
}
