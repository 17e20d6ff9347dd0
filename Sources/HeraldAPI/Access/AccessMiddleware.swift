import Foundation
import HeraldCore
import Hummingbird

/// API keys, app scoping, the rate limits and the request timeout, before any route.
///
/// It runs once the router has matched a route, so access is decided from the route's template
/// and its decoded parameters (``RouteAccess``), never from the raw path: `/v1//apps/x`,
/// `/v1/apps/x%2Fy` or a future route cannot slip past a prefix check.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    let keys: APIKeys
    /// `metrics.public`: `/metrics` answers without a key even when keys are configured.
    let metricsArePublic: Bool
    let metrics: ServerMetrics
    /// One bucket per API key.
    let limiter: RateLimiter
    /// One bucket per inbound hook: hooks take no API key, so their own name is the bucket.
    let hookLimiter: RateLimiter
    /// The request timeout.
    let deadlines: RequestDeadlines

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let access = RouteAccess(method: request.method, template: context.endpointPath)
        switch access {
        case .open:
            return try await withTimeout(request, context, next)
        case .signedHook:
            if let refusal = try refusal(limiter: hookLimiter, scope: .hook, key: "hook:" + context.parameters.decoded("name"),
                                         who: "this hook", request: request, context: context) {
                return refusal
            }
            return try await withTimeout(request, context, next)
        case .metrics where keys.isEmpty || metricsArePublic:
            return try await withTimeout(request, context, next)
        case .app, .admin, .anyKey, .metrics, .unmatched:
            break
        }
        var context = context
        if !keys.isEmpty {
            // Basic credentials only for the status pages: a browser sends cached Basic credentials
            // on its own, even with a form another site posts, so they must not reach the API.
            let isStatusPage = context.endpointPath?.hasPrefix("/ui") == true
            guard let key = Self.presentedKey(request.headers[.authorization], allowingBasic: isStatusPage),
                  let principal = keys.principal(for: key) else {
                var response = try APIError(status: .unauthorized, reason: .unauthorized,
                                            message: "a valid API key is required: Authorization: Bearer <key>")
                    .response(from: request, context: context)
                // A browser opening the status pages asks for the key (as the password) itself.
                if isStatusPage {
                    response.headers[.wwwAuthenticate] = "Basic realm=\"Herald\", charset=\"UTF-8\""
                }
                return response
            }
            context.principal = principal
            // One bucket per key, however the header spells it.
            if let refusal = try refusal(limiter: limiter, scope: .key, key: key, who: "this key", request: request, context: context) {
                return refusal
            }
            try authorize(principal, access: access, parameters: context.parameters)
        }
        return try await withTimeout(request, context, next)
    }

    /// The key in `Authorization: Bearer <key>`, or, where allowed, the password of `Basic`
    /// credentials (what a browser sends for the status pages; the user name is ignored).
    static func presentedKey(_ header: String?, allowingBasic: Bool) -> String? {
        guard let header, let space = header.firstIndex(of: " ") else { return nil }
        let scheme = header[..<space].lowercased()
        let value = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        switch scheme {
        case "bearer":
            return value
        case "basic" where allowingBasic:
            guard let data = Data(base64Encoded: value), let credentials = String(data: data, encoding: .utf8),
                  let colon = credentials.firstIndex(of: ":") else { return nil }
            return String(credentials[credentials.index(after: colon)...])
        default:
            return nil
        }
    }

    /// App keys reach only routes of their own app (compared on the decoded `{app}` parameter)
    /// and the push route, which checks each entry's app itself. A metrics key reads `/metrics`
    /// alone, which otherwise needs an admin. Everything else needs an admin.
    private func authorize(_ principal: Principal, access: RouteAccess, parameters: Parameters) throws {
        if principal == .metrics {
            guard access == .metrics || access == .open || access == .unmatched else {
                throw APIError(status: .forbidden, reason: .forbidden, message: "a metrics key reads /metrics only")
            }
            return
        }
        guard case .app(let own) = principal else { return }
        switch access {
        case .open, .signedHook, .anyKey, .unmatched:
            return
        case .metrics:
            throw APIError(status: .forbidden, reason: .forbidden, message: "/metrics needs an admin or a metrics key")
        case .app:
            guard try parameters.decoded("app") == own else {
                throw APIError(status: .forbidden, reason: .forbidden, message: "this key belongs to app '\(own)'")
            }
        case .admin:
            throw APIError(status: .forbidden, reason: .forbidden, message: "this route needs an admin key")
        }
    }

    /// A 429 `rateLimited` answer with `Retry-After` when `key`'s bucket is empty, else nil.
    private func refusal(limiter: RateLimiter, scope: ServerMetrics.RateLimitScope, key: String, who: String,
                         request: Request, context: Context) throws -> Response? {
        guard let wait = limiter.acquire(key) else { return nil }
        metrics.rateLimited(scope)
        let seconds = max(1, Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up)))
        var response = try APIError(status: .tooManyRequests, reason: .rateLimited,
                                    message: "too many requests for \(who); retry after \(seconds) s")
            .response(from: request, context: context)
        response.headers[.retryAfter] = String(seconds)
        return response
    }

    /// Runs the route, answering 503 `requestTimeout` if it takes longer than the deadlines'
    /// timeout: the route runs in a task of its own, which its deadline cancels.
    private func withTimeout(_ request: Request, _ context: Context,
                             _ next: (Request, Context) async throws -> Response) async throws -> Response {
        try await withoutActuallyEscaping(next) { next in
            // The route runs exactly once, in `work`, which this call awaits before it returns.
            nonisolated(unsafe) let route = next
            let work = Task { try await route(request, context) }
            let armed = deadlines.arm { work.cancel() }
            let result = await withTaskCancellationHandler { await work.result } onCancel: { work.cancel() }
            guard deadlines.disarm(armed) else {
                throw APIError(status: .serviceUnavailable, reason: .requestTimeout,
                               message: "the request took longer than \(deadlines.timeout)")
            }
            return try result.get()
        }
    }
}

/// Who may call a route, from the template the router matched (`/v1/apps/{app}/devices/{device}`).
enum RouteAccess: Equatable {
    /// No key: health, readiness and the API document.
    case open
    /// `/metrics`: open without keys or with `metrics.public`; else an admin or a metrics key.
    case metrics
    /// `POST /v1/hooks/{name}`: no key, its HMAC signature is its credential; rate-limited per hook.
    case signedHook
    /// A route under `/v1/apps/{app}`: an admin key, or that app's key.
    case app
    /// Any valid key; the route checks the apps named in the body (`POST /v1/push`).
    case anyKey
    /// Admin keys only: hook definitions, the feedback outbox, and any route not listed here.
    case admin
    /// No route matched: the answer is a 404 whoever asks.
    case unmatched

    static let openTemplates: Set<String> = ["/healthz", "/readyz", "/openapi.yaml"]

    init(method: HTTPRequest.Method, template: String?) {
        guard let template else { self = .unmatched; return }
        if Self.openTemplates.contains(template) {
            self = .open
        } else if template == "/metrics" {
            self = .metrics
        } else if template == "/v1/apps", method == .get {
            // Every key lists apps; an app key sees its own (the route filters).
            self = .anyKey
        } else if template == "/v1/hooks/{name}", method == .post {
            self = .signedHook
        } else if template == "/v1/push" {
            self = .anyKey
        } else if template == "/v1/apps/{app}" || template.hasPrefix("/v1/apps/{app}/") {
            self = .app
        } else {
            // Fail closed: a route added later without a rule here is for admins only.
            self = .admin
        }
    }
}
