import Foundation
import HeraldCore
import HeraldStorage
import Synchronization

/// Where the gateway remembers dead device tokens and raises feedback about them.
public protocol TokenLedger: Sendable {
    func isInvalid(appID: String, token: String) async -> Bool
    /// Records a dead token; false when it was kept (registered again after APNs' timestamp).
    @discardableResult
    func invalidate(_ token: InvalidToken) async -> Bool
}

/// The ledger of a running server: invalid tokens and their feedback events are stored.
public struct StoredTokenLedger: TokenLedger {
    let store: any NotificationStore

    public init(store: any NotificationStore) {
        self.store = store
    }

    public func isInvalid(appID: String, token: String) async -> Bool {
        (try? await store.invalidToken(appID: appID, token: token)) != nil
    }

    public func invalidate(_ token: InvalidToken) async -> Bool {
        var payload: [String: JSONValue] = ["app": .string(token.appID), "token": .string(token.token),
                                            "reason": .string(token.reason)]
        if let timestamp = token.apnsTimestamp { payload["timestamp"] = .number(Double(timestamp)) }
        let feedback = FeedbackEvent(type: "token.invalid", appID: token.appID, payload: payload, createdAt: token.invalidatedAt)
        return (try? await store.invalidateToken(token, feedback: feedback)) ?? false
    }
}

/// A ledger that lives only as long as the process: for one-shot sends (`herald push --direct`).
public final class TransientTokenLedger: TokenLedger {
    private let invalid = Mutex<[String: InvalidToken]>([:])

    public init() {}

    public var invalidated: [InvalidToken] { invalid.withLock { Array($0.values) } }

    public func isInvalid(appID: String, token: String) async -> Bool {
        invalid.withLock { $0["\(appID)/\(token)"] != nil }
    }

    public func invalidate(_ token: InvalidToken) async -> Bool {
        invalid.withLock { $0["\(token.appID)/\(token.token)"] = token }
        return true
    }
}
