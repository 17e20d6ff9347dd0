import Hummingbird

/// Who is calling: an admin key may do anything; an app key only touches its own app.
public enum Principal: Sendable, Equatable {
    case admin
    case app(String)
    /// A metrics key (`auth.metricsKeys`): reads `/metrics` and nothing else.
    case metrics
    /// No keys are configured: the server listens on loopback only and trusts its callers.
    case loopback

    /// An admin key, or the keyless loopback server: may name server files and custom hosts.
    public var isAdministrator: Bool {
        switch self {
        case .admin, .loopback: return true
        case .app, .metrics: return false
        }
    }

    /// Whether this caller may act on `appID`.
    public func mayUse(app appID: String) -> Bool {
        switch self {
        case .admin, .loopback: return true
        case .app(let own): return own == appID
        case .metrics: return false
        }
    }
}

/// The request context of every Herald route: Hummingbird's core storage plus the caller.
public struct HeraldRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``AccessMiddleware`` before any route runs.
    public var principal: Principal = .loopback

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// Bodies are read and limited by the routes themselves (``JSONBody``).
    public var maxUploadSize: Int { .max }
}
