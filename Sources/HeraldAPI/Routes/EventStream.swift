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
/// notifications as they happen. Live events carry the id of their hand-over on the last of a
/// batch: until the client acknowledges it, the next wake hands them over again. Comment lines
/// every `heartbeat` keep proxies from closing an idle stream and reveal a client that has gone.
/// When the last stream of a device closes, the device is asleep again (suspended).
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
            throw APIError(status: .serviceUnavailable, reason: .shuttingDown, message: "this node is stopping; reconnect",
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
                // The backlog's id comes last, after the older inbox ids, so a client's
                // Last-Event-ID acknowledges the backlog only once it has read everything above.
                if let sequence = wake.backlogSequence {
                    try await writer.write(Self.frame("handedOver", ["backlogSeq": sequence], id: sequence))
                }
                // What the wake handed over. Live events handed over before it are in its backlog
                // (until acknowledged, a wake hands their net change over again); what comes
                // later is read from the store above it.
                var lastSent = max(wake.inbox.last?.sequence ?? -1, wake.backlogSequence ?? -1)
                /// Writes what the device was handed above `lastSent`, inbox items and live events
                /// in id order. False when the stream must end: the store could not be read, or
                /// live events it had not read were forgotten. Nothing is lost then: the client
                /// reconnects, and its wake hands everything over.
                func writeHandedOver() async throws -> Bool {
                    let handed: HandedOver
                    do {
                        handed = try await store.handedOver(appID: app.id, deviceID: device.id, after: lastSent)
                    } catch {
                        logger.warning("event stream could not read what the device was handed; ending it",
                                       metadata: ["device": "\(device.id)", "error": "\(error)"])
                        try await writer.write(Self.retryHint(.seconds(1)))
                        return false
                    }
                    guard !handed.missedLive else {
                        logger.info("event stream fell behind its live events; ending it", metadata: ["device": "\(device.id)"])
                        try await writer.write(Self.retryHint(.zero))
                        return false
                    }
                    var live = handed.live[...]
                    for item in handed.inbox {
                        guard let sequence = item.sequence else { continue }
                        while let batch = live.first, batch.sequence < sequence {
                            try await writer.write(Self.frames(batch))
                            lastSent = batch.sequence
                            live = live.dropFirst()
                        }
                        try await writer.write(Self.frame("notification", PresentedNotificationResource(item), id: sequence))
                        lastSent = sequence
                    }
                    for batch in live {
                        try await writer.write(Self.frames(batch))
                        lastSent = batch.sequence
                    }
                    return true
                }
                reading: for await message in messages {
                    switch message {
                    case .handedOver(let upTo):
                        guard upTo > lastSent else { continue }
                        if !(try await writeHandedOver()) { break reading }
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

    /// Live events handed over together: one `system` frame each, the batch's id on the last,
    /// so `Last-Event-ID` acknowledges them only once all were read.
    static func frames(_ batch: LiveHandOvers.Batch) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        for (index, event) in batch.events.enumerated() {
            var frame = try frame("system", CoalescedResource(CoalescedNotification(kind: event.kind, key: event.key,
                                                                                  value: event.value, count: 1)),
                                  id: index == batch.events.count - 1 ? batch.sequence : nil)
            buffer.writeBuffer(&frame)
        }
        return buffer
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
