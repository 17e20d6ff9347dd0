import Foundation
import HeraldCore
import HeraldDelivery
import HeraldScheduler
import HeraldStorage
import Hummingbird
import Logging

/// `GET .../events/stream`: a device's live event stream as Server-Sent Events.
///
/// Connecting wakes the device; the coalesced backlog and the inbox are written first (then a
/// `handedOver` event whose id acknowledges the backlog), then live events and fired local
/// notifications as they happen. Comment lines every `heartbeat` keep
/// proxies from closing an idle stream and reveal a client that has gone. When the last stream
/// of a device closes, the device is asleep again (suspended).
struct EventStream {
    let store: any DeviceStore
    let streams: LiveStreams
    let heartbeat: Duration

    func open(app: App, device: Device, foreground: Bool, acknowledging lastEventID: Int64?, logger: Logger) async throws -> Response {
        let catalog = try EventCatalog(customKinds: app.customKinds)
        // Subscribe before waking, so nothing that happens after the wake is missed.
        let id: UUID
        let messages: AsyncStream<LiveMessage>
        do {
            (id, messages) = try await streams.subscribe(appID: app.id, deviceID: device.id)
        } catch is LiveStreams.Stopping {
            throw APIError(status: .serviceUnavailable, reason: "shuttingDown", message: "this node is stopping; reconnect",
                           headers: [.retryAfter: "1"])
        }
        let state: LifecycleState = foreground ? .active : (device.state.isAwake ? device.state : .background)
        let wake: WakeResult
        do {
            wake = try await store.setState(appID: app.id, deviceID: device.id, state: state, drain: true, catalog: catalog,
                                            acknowledging: lastEventID)
        } catch {
            await streams.unsubscribe(appID: app.id, deviceID: device.id, id: id)
            throw error
        }
        let (store, streams, heartbeat) = (self.store, self.streams, self.heartbeat)
        let body = ResponseBody { writer in
            let pinger = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: heartbeat)
                    await streams.ping(appID: app.id, deviceID: device.id, id: id)
                }
            }
            defer { pinger.cancel() }
            do {
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                for notification in wake.notifications {
                    try await writer.write(Self.frame("system", CoalescedResource(notification)))
                }
                for item in wake.inbox {
                    try await writer.write(Self.frame("notification", PresentedNotificationResource(item), id: item.sequence))
                }
                // What the wake handed over; later items are read from the inbox above it.
                var lastSent = wake.inbox.last?.sequence ?? -1
                // The backlog's id comes last, after the older inbox ids, so a client's
                // Last-Event-ID acknowledges the backlog only once it has read everything above.
                if let sequence = wake.backlogSequence {
                    try await writer.write(Self.frame("handedOver", ["backlogSeq": sequence], id: sequence))
                }
                reading: for await message in messages {
                    switch message {
                    case .event(let event):
                        try await writer.write(Self.frame("system", CoalescedResource(CoalescedNotification(
                            kind: event.kind, key: event.key, value: event.value, count: 1))))
                    case .inbox(let upTo):
                        guard upTo > lastSent else { continue }
                        let items: [InboxItem]
                        do {
                            items = try await store.inbox(appID: app.id, deviceID: device.id, after: lastSent)
                        } catch {
                            // The items stay in the inbox: the client reconnects and gets them.
                            logger.warning("event stream could not read the inbox; ending it",
                                           metadata: ["device": "\(device.id)", "error": "\(error)"])
                            try await writer.write(Self.retryHint(.seconds(1)))
                            break reading
                        }
                        for item in items {
                            try await writer.write(Self.frame("notification", PresentedNotificationResource(item), id: item.sequence))
                        }
                        lastSent = items.last?.sequence ?? lastSent
                    case .heartbeat:
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    case .closing(let retryAfter):
                        try await writer.write(Self.retryHint(retryAfter))
                        break reading
                    }
                }
                try await writer.finish(nil)
            } catch {
                logger.debug("event stream closed", metadata: ["device": "\(device.id)", "error": "\(error)"])
            }
            if await streams.unsubscribe(appID: app.id, deviceID: device.id, id: id) {
                // As iOS does: a closed app goes to the background, then is suspended. In a task of
                // its own, since storage refuses to start work for a cancelled task.
                await Task {
                    _ = try? await store.setState(appID: app.id, deviceID: device.id, state: .background, drain: false, catalog: catalog)
                    _ = try? await store.setState(appID: app.id, deviceID: device.id, state: .suspended, drain: false, catalog: catalog)
                }.value
            }
        }
        return Response(status: .ok,
                        headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .connection: "keep-alive"],
                        body: body)
    }

    /// The last frame of a stream the server ends: when to reconnect (SSE's `retry:` field).
    static func retryHint(_ after: Duration) -> ByteBuffer {
        ByteBuffer(string: ": server closing the stream\nretry: \(after.wholeMilliseconds)\n\n")
    }

    /// One SSE event: `id: <seq>` for an inbox item (what `Last-Event-ID` acknowledges on
    /// reconnect), `event: <name>`, and the JSON on one `data:` line.
    static func frame(_ name: String, _ value: some Encodable, id: Int64? = nil) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(value), as: UTF8.self)
        return ByteBuffer(string: (id.map { "id: \($0)\n" } ?? "") + "event: \(name)\ndata: \(json)\n\n")
    }
}
