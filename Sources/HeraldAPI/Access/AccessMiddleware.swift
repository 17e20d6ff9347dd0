import Foundation
import HeraldCore
import Hummingbird

/// API keys, app scoping, the per-key rate limit and the request timeout, before any route.
///
/// Open without a key: health and metrics, and signed inbound hooks (their HMAC signature is
/// their credential).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    let keys: APIKeys
    let limiter: RateLimiter
    let timeout: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if ["/healthz", "/readyz", "/metrics", "/openapi.yaml"].contains(path)
            || (request.method == .post && path.hasPrefix("/v1/hooks/")) {
            return try await withTimeout(request, context, next)
        }
        var context = context
        if !keys.isEmpty {
            guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer "),
                  case let key = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces),
                  let principal = keys.principal(for: key)
            else {
                throw APIError(status: .unauthorized, reason: "unauthorized", message: "a valid API key is required: Authorization: Bearer <key>")
            }
            context.principal = principal
            // One bucket per key, however the header spells it.
            if let wait = limiter.acquire(key) {
                let seconds = max(1, Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up)))
                var response = try APIError(status: .tooManyRequests, reason: "rateLimited",
                                            message: "too many requests for this key; retry after \(seconds) s")
                    .response(from: request, context: context)
                response.headers[.retryAfter] = String(seconds)
                return response
            }
            try authorize(context.principal, method: request.method, path: path)
        }
        return try await withTimeout(request, context, next)
    }

    /// App keys reach only their own app; hooks and feedback administration need an admin key.
    private func authorize(_ principal: Principal, method: HTTPRequest.Method, path: String) throws {
        guard case .app(let own) = principal else { return }
        let parts = path.split(separator: "/")
        if parts.count >= 3, parts[0] == "v1", parts[1] == "apps", parts[2] != own {
            throw APIError(status: .forbidden, reason: "forbidden", message: "this key belongs to app '\(own)'")
        }
        if parts.count >= 2, parts[0] == "v1", parts[1] == "hooks" || parts[1] == "feedback" {
            throw APIError(status: .forbidden, reason: "forbidden", message: "only an admin key manages hooks and feedback")
        }
    }

    /// Runs the route, answering 503 `requestTimeout` if it takes longer than `timeout`.
    private func withTimeout(_ request: Request, _ context: Context,
                             _ next: (Request, Context) async throws -> Response) async throws -> Response {
        let timeout = self.timeout
        return try await withoutActuallyEscaping(next) { next in
            // The route runs exactly once, in the child task, while this task waits for the group.
            nonisolated(unsafe) let route = next
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await route(request, context) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                guard let first = try await group.next() else { throw CancellationError() }
                group.cancelAll()
                guard let response = first else {
                    throw APIError(status: .serviceUnavailable, reason: "requestTimeout",
                                   message: "the request took longer than \(timeout)")
                }
                return response
            }
        }
    }
}
