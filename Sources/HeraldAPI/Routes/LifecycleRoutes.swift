import Foundation
import HeraldCoalescer
import HeraldCore
import Hummingbird
import Logging

/// Device state, reported system events, wake, and the live event stream (SSE).
struct LifecycleRoutes {
    let services: APIServices
    let coalescer: Coalescer
    let wakePushes: WakePushes
    let metrics: ServerMetrics
    let heartbeat: Duration
    let idempotency: IdempotentRequests

    static let maximumEventsPerRequest = 1000

    func register(on router: Router<HeraldRequestContext>) {
        let base = "/v1/apps/:app/devices/:device"

        router.put("\(base)/state") { request, context in
            struct Body: Decodable { var state: String? }
            let (app, device) = try await target(context)
            let body = try await services.body.decode(Body.self, from: request)
            let state = try Self.state(body.state)
            let result = try await coalescer.move(app: app, deviceID: device.id, to: state, drain: false)
            return try Response.json(WakeResource(result))
        }

        router.post("\(base)/wake") { request, context in
            struct Body: Decodable {
                var state: String?
                /// Everything handed over up to this sequence id (inbox items, the backlog's
                /// `backlogSeq`) was received: acknowledge it before waking.
                var ack: Int64?
            }
            let (app, device) = try await target(context)
            let data = try await services.body.bytes(of: request)
            let body = data.isEmpty ? Body() : try JSONBody.decode(Body.self, from: data)
            let state = try Self.state(body.state ?? LifecycleState.background.rawValue)
            guard state == .background || state == .active else {
                throw HeraldError.invalid(.invalidState, "wake moves a device to background or active")
            }
            let result = try await coalescer.move(app: app, deviceID: device.id, to: state, drain: true,
                                                  acknowledging: try Self.sequence(body.ack, field: "ack"))
            return try Response.json(WakeResource(result))
        }

        router.post("\(base)/inbox/ack") { request, context in
            struct Body: Decodable { var upTo: Int64? }
            let (app, device) = try await target(context)
            let body = try await services.body.decode(Body.self, from: request)
            guard let upTo = try Self.sequence(body.upTo, field: "upTo") else {
                throw HeraldError.invalid(.missingField, "upTo is required: the highest sequence id received (an inbox item's seq, or backlogSeq)")
            }
            let acknowledged = try await coalescer.acknowledge(appID: app.id, deviceID: device.id, upTo: upTo)
            return try Response.json(AcknowledgementResource(acknowledged))
        }

        // A resend under the same Idempotency-Key counts nothing twice (a sum kind would).
        router.post("\(base)/events") { request, context in
            try await idempotency.run(request, context: context) { try await reportEvents($0, context: context) }
        }

        router.get("\(base)/events/backlog") { _, context in
            let (app, device) = try await target(context)
            let backlog = try await coalescer.backlog(app: app, deviceID: device.id)
            return try Response.json(["notifications": backlog.map(CoalescedResource.init)])
        }

        router.get("\(base)/events/stream") { request, context in
            let (app, device) = try await target(context)
            let foreground = request.uri.queryParameters.get("foreground") == "true"
            // A reconnecting client names the last event it received: the inbox up to it is done.
            let lastEventID = request.header("Last-Event-ID").flatMap { Int64($0) }
            return try await EventStream(coalescer: coalescer, heartbeat: heartbeat)
                .open(app: app, device: device, foreground: foreground, acknowledging: lastEventID, logger: context.logger)
        }
    }

    /// `POST .../events`: system events, live to a connected device or coalesced for its wake.
    private func reportEvents(_ request: Request, context: HeraldRequestContext) async throws -> Response {
        struct Body: Decodable { var events: [SystemEvent]? }
        let (app, device) = try await target(context)
        let body = try await services.body.decode(Body.self, from: request)
        guard let events = body.events, !events.isEmpty else {
            throw HeraldError.invalid(.missingField, "events is required: a non-empty array")
        }
        guard events.count <= Self.maximumEventsPerRequest else {
            throw HeraldError(.tooLarge, reason: .tooManyEvents, message: "at most \(Self.maximumEventsPerRequest) events per request")
        }
        let ingestion = try await coalescer.report(events, app: app, deviceID: device.id)
        metrics.eventsReported(live: ingestion.live.count, queued: ingestion.queued)
        // A reported time zone or locale is also the device's own.
        let reported = ingestion.device.withFacts(reportedIn: ingestion.accepted)
        if reported != ingestion.device { try await services.directory.saveDevice(reported) }
        if ingestion.queued > 0, ingestion.backlog > 0 {
            sendWakePush(app: app, device: ingestion.device)
        }
        return try Response.json(["accepted": ingestion.accepted.count, "live": ingestion.live.count,
                                  "queued": ingestion.queued, "backlog": ingestion.backlog])
    }

    private func target(_ context: HeraldRequestContext) async throws -> (App, Device) {
        let appID = try context.parameters.decoded("app")
        let app = try await services.directory.existingApp(appID)
        let device = try await services.directory.existingDevice(app: appID, id: try context.parameters.decoded("device"))
        return (app, device)
    }

    /// An inbox sequence id as a client sends it back: a non-negative integer.
    static func sequence(_ value: Int64?, field: String) throws(HeraldError) -> Int64? {
        if let value, value < 0 { throw .invalid(.invalidAck, "\(field) must be an inbox sequence id (0 or more)") }
        return value
    }

    static func state(_ text: String?) throws(HeraldError) -> LifecycleState {
        guard let text else { throw .invalid(.missingField, "state is required") }
        guard let state = LifecycleState(rawValue: text) else {
            throw .invalid(.invalidState, "state must be one of \(LifecycleState.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return state
    }

    /// A wake push, off the request's path: the request has its answer whatever becomes of it.
    private func sendWakePush(app: App, device: Device) {
        guard wakePushes.reach(device, of: app) else { return }
        let (wakePushes, metrics, now) = (self.wakePushes, self.metrics, services.clock.now())
        Task {
            switch await wakePushes.send(to: device, of: app, now: now) {
            case .sent: metrics.wakePush(sent: true)
            case .throttled: metrics.wakePush(sent: false)
            case .notSent: break
            }
        }
    }
}
