import Foundation
import HeraldCore
import HeraldDelivery
import Hummingbird

/// The status of the whole server, one app or one device: as JSON under `/v1/status` (what
/// `herald status` prints) and as live pages under `/ui`. Admin only, like every route not
/// listed in ``RouteAccess``; with no keys (loopback development) open to this machine.
struct StatusRoutes {
    let reports: StatusReports
    let outbox: FeedbackOutbox

    /// Outbox messages the page lists.
    static let outboxLimit = 200
    /// Sent by the pages' own script with each request that changes something.
    static let pageHeader = "X-Herald-UI"

    func register(on router: Router<HeraldRequestContext>) {
        router.get("/v1/status") { _, _ in
            try Response.json(try await reports.overview())
        }
        router.get("/v1/status/apps/:app") { _, context in
            try Response.json(try await reports.app(try context.parameters.decoded("app")))
        }
        router.get("/v1/status/apps/:app/devices/:device") { _, context in
            try Response.json(try await reports.device(app: try context.parameters.decoded("app"),
                                                       device: try context.parameters.decoded("device")))
        }

        router.get("/ui") { request, _ in
            let now = reports.clock.now()
            return try page(request, title: "Apps", main: StatusPages.apps(try await reports.overview(), now: now))
        }
        router.get("/ui/apps/:app") { request, context in
            let report = try await reports.app(try context.parameters.decoded("app"))
            return try page(request, title: report.app, main: StatusPages.app(report, now: reports.clock.now()))
        }
        router.get("/ui/apps/:app/devices/:device") { request, context in
            let report = try await reports.device(app: try context.parameters.decoded("app"),
                                                  device: try context.parameters.decoded("device"))
            return try page(request, title: report.device, main: StatusPages.device(report, now: reports.clock.now()))
        }
        // The page's retry button. The custom header is what a form on another site cannot send
        // (and a script there could only send after a CORS preflight this server never grants).
        router.post("/ui/outbox/:id/retry") { request, context in
            guard request.header(Self.pageHeader) != nil else {
                throw HeraldError(.forbidden, reason: .notFromStatusPage, message: "send X-Herald-UI: 1, as the status page does")
            }
            return try await FeedbackRoutes.retry(try context.parameters.decoded("id"), in: outbox)
        }
        router.get("/ui/outbox") { request, _ in
            var messages = try await outbox.messages(state: .parked, limit: Self.outboxLimit)
            messages += try await outbox.messages(state: .pending, limit: Self.outboxLimit)
            let full = await outbox.fullReceivers
            return try page(request, title: "Feedback outbox",
                            main: StatusPages.outbox(messages, fullReceivers: full, now: reports.clock.now()))
        }
    }

    /// The whole page, or with `?fragment=main` only what the live script swaps in.
    private func page(_ request: Request, title: String, main: String) throws -> Response {
        let fragment = request.uri.queryParameters.get("fragment")
        guard fragment == nil || fragment == "main" else {
            throw HeraldError.badRequest(.invalidFragment, "fragment must be main")
        }
        let html = fragment == nil ? StatusPageLayout.document(title: title, main: main) : main
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
