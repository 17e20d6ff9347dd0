import Foundation
import HeraldCore
import HeraldPush
import HeraldStorage

/// The ledger of a running server: invalid tokens and their feedback events are stored.
public struct StoredTokenLedger: TokenLedger {
    let store: any DeliveryStore

    public init(store: any DeliveryStore) {
        self.store = store
    }

    public func isInvalid(appID: String, token: String) async -> Bool {
        (try? await store.invalidToken(appID: appID, token: token)) != nil
    }

    public func invalid(appID: String, among tokens: Set<String>) async -> Set<String> {
        (try? await store.invalidTokens(appID: appID, among: tokens)) ?? []
    }

    public func invalidate(_ token: InvalidToken) async -> Bool {
        var payload: [String: JSONValue] = ["app": .string(token.appID), "token": .string(token.token),
                                            "reason": .string(token.reason)]
        if let timestamp = token.apnsTimestamp { payload["timestamp"] = .number(Double(timestamp)) }
        let feedback = FeedbackEvent(type: .tokenInvalid, appID: token.appID, payload: payload, createdAt: token.invalidatedAt)
        return (try? await store.invalidateToken(token, feedback: feedback)) ?? false
    }
}
