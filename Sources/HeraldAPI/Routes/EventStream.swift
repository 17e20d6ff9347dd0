import Foundation
import HeraldCoalescer
import HeraldCore
import Hummingbird
import Logging

/// `GET .../events/stream`: a device's live event stream (``EventSession``) as Server-Sent Events.
/// Comment lines carry the heartbeat; an inbox item's and a hand-over's id are the SSE `id:`,
/// which a reconnecting client sends back as `Last-Event-ID`.
struct EventStream {
    let coalescer: Coalescer
    let heartbeat: Duration

    func open(app: App, device: Device, foreground: Bool, acknowledging lastEventID: Int64?, logger: Logger) async throws -> Response {
        let session: EventSession
        do {
            session = try await EventSession.open(coalescer, app: app, device: device, foreground: foreground,
                                                  acknowledging: lastEventID, heartbeat: heartbeat, logger: logger)
        } catch is EventSession.Stopping {
            throw APIError(status: .serviceUnavailable, reason: .shuttingDown, message: "this node is stopping; reconnect",
                           headers: [.retryAfter: "1"])
        }
        let body = ResponseBody { writer in
            await session.run(send: { frame in try await writer.write(try Self.encode(frame)) },
                              finish: { try await writer.finish(nil) })
        }
        return Response(status: .ok,
                        headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .connection: "keep-alive"],
                        body: body)
    }

    static func encode(_ frame: EventSession.Frame) throws -> ByteBuffer {
        switch frame {
        case .connected: ByteBuffer(string: ": connected\n\n")
        case .system(let notification, let id): try event("system", CoalescedResource(notification), id: id)
        case .notification(let item): try event("notification", PresentedNotificationResource(item), id: item.sequence)
        case .handedOver(let sequence): try event("handedOver", ["backlogSeq": sequence], id: sequence)
        case .heartbeat: ByteBuffer(string: ": heartbeat\n\n")
        // SSE's `retry:` field: when to reconnect.
        case .reconnect(let after): ByteBuffer(string: ": server closing the stream\nretry: \(after.wholeMilliseconds)\n\n")
        }
    }

    /// One SSE event: `id: <seq>` (what `Last-Event-ID` acknowledges on reconnect), `event:
    /// <name>`, and the JSON on one `data:` line.
    static func event(_ name: String, _ value: some Encodable, id: Int64? = nil) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(value), as: UTF8.self)
        return ByteBuffer(string: (id.map { "id: \($0)\n" } ?? "") + "event: \(name)\ndata: \(json)\n\n")
    }
}
