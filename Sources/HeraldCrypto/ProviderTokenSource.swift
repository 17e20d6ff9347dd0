import Foundation
import Synchronization

/// Hands out the current provider token, renewing it only between 20 and 60 minutes of age.
///
/// APNs refuses tokens older than an hour and answers `TooManyProviderTokenUpdates` when a
/// provider renews more often than every 20 minutes, so one source is shared by every connection
/// of an app, and a refusal of a young token never triggers a renewal.
public final class ProviderTokenSource: Sendable {
    public static let minimumAge: TimeInterval = 20 * 60
    public static let maximumAge: TimeInterval = 60 * 60

    private let key: ES256Key
    private let keyID: String
    private let teamID: String
    private let renewAt: TimeInterval
    private let state = Mutex<(token: ProviderToken?, renewals: Int, refusedAsTooFrequent: Int)>((nil, 0, 0))

    /// - Parameter renewAt: the age at which a token is replaced; clamped to 20–60 minutes.
    public init(key: ES256Key, keyID: String, teamID: String, renewAt: TimeInterval = 50 * 60) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.renewAt = min(max(renewAt, Self.minimumAge), Self.maximumAge - 60)
    }

    /// How many tokens this source has signed.
    public var renewals: Int { state.withLock { $0.renewals } }

    /// How often APNs answered `TooManyProviderTokenUpdates` for this key's tokens.
    public var refusalsAsTooFrequent: Int { state.withLock { $0.refusedAsTooFrequent } }

    /// APNs answered `TooManyProviderTokenUpdates`: counted, and the token kept (renewing again
    /// would only be refused again).
    public func refusedAsTooFrequent() {
        state.withLock { $0.refusedAsTooFrequent += 1 }
    }

    /// The token to send now: the cached one until it reaches `renewAt`, then a new one.
    public func token(now: Date) throws -> ProviderToken {
        try state.withLock { state in
            if let token = state.token, now.timeIntervalSince1970 - Double(token.issuedAt) < renewAt {
                return token
            }
            let token = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: now, key: key)
            state.token = token
            state.renewals += 1
            return token
        }
    }

    /// APNs answered `ExpiredProviderToken` for `token`. It is dropped only if it is at least 20
    /// minutes old; a younger one is kept, since renewing it would be refused as too frequent.
    /// Returns whether a fresh token will be used next.
    @discardableResult
    public func expired(_ token: ProviderToken, now: Date) -> Bool {
        state.withLock { state in
            guard let current = state.token, current == token,
                  now.timeIntervalSince1970 - Double(current.issuedAt) >= Self.minimumAge
            else { return state.token != token }
            state.token = nil
            return true
        }
    }
}
