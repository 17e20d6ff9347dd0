import Foundation
import HeraldCore
import Synchronization

/// Where the gateway remembers dead device tokens and raises feedback about them.
public protocol TokenLedger: Sendable {
    func isInvalid(appID: String, token: String) async -> Bool
    /// Which of `tokens` are dead: one call for a delivery batch.
    func invalid(appID: String, among tokens: Set<String>) async -> Set<String>
    /// Records a dead token; false when it was kept (registered again after APNs' timestamp).
    @discardableResult
    func invalidate(_ token: InvalidToken) async -> Bool
}

extension TokenLedger {
    public func invalid(appID: String, among tokens: Set<String>) async -> Set<String> {
        var invalid: Set<String> = []
        for token in tokens where await isInvalid(appID: appID, token: token) { invalid.insert(token) }
        return invalid
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
