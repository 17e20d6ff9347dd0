import HeraldHTTP2
import Hummingbird
import Metrics
import Synchronization

/// `herald_http_requests_total{route, method, status}` (status as a class: 2xx, 4xx, ...) and
/// `herald_http_request_duration_seconds{route, method}`.
///
/// Outermost, so it sees the final status of errors too. The route is the template the router
/// matched (`/v1/apps/{app}`), never the raw path, so ids do not make new series.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private struct Key: Hashable {
        var route: String, method: String, statusClass: String
    }

    private final class Series: Sendable {
        let requests = Mutex<[Key: Counter]>([:])
        let durations = Mutex<[[String]: Metrics.Timer]>([:])
    }

    private let series = Series()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let status: HTTPResponse.Status
        let result: Result<Response, any Error>
        do {
            let response = try await next(request, context)
            (status, result) = (response.status, .success(response))
        } catch {
            status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            result = .failure(error)
        }
        // Hummingbird names an unmatched request's endpoint "NotFound".
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        record(route: route, method: request.method.rawValue, status: status,
               elapsed: .now - started)
        return try result.get()
    }

    private func record(route: String, method: String, status: HTTPResponse.Status, elapsed: Duration) {
        let key = Key(route: route, method: method, statusClass: "\(status.code / 100)xx")
        series.requests.withLock { requests in
            let counter = requests[key] ?? Counter(label: "herald_http_requests_total", dimensions: [
                ("route", route), ("method", method), ("status", key.statusClass),
            ])
            requests[key] = counter
            return counter
        }.increment()
        series.durations.withLock { durations in
            let timer = durations[[route, method]] ?? Metrics.Timer(label: "herald_http_request_duration_seconds",
                                                                    dimensions: [("route", route), ("method", method)],
                                                                    preferredDisplayUnit: .seconds)
            durations[[route, method]] = timer
            return timer
        }.recordNanoseconds(elapsed.clampedNanoseconds)
    }
}
