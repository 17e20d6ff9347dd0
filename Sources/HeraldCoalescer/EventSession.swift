import Foundation
import HeraldCore
import HeraldStorage
import Logging

/// One live event stream of a device, from its wake to its sleep. The API writes its frames as
/// Server-Sent Events.
///
/// Opening wakes the device; the coalesced backlog and the inbox come first (then a
/// ``Frame/handedOver(backlogSequence:)`` whose id acknowledges the backlog), then live events
/// and fired local notifications as they are handed over. Live events carry the id of their
/// hand-over on the last of a batch: until the client acknowledges it, the next wake hands
/// them over again. A heartbeat every `heartbeat` keeps proxies from closing an idle stream and
/// reveals a client that has gone. When the device's last stream closes, it is asleep again
/// (suspended), as iOS suspends a closed app.
public struct EventSession: Sendable {
    /// What a stream sends, in order.
    public enum Frame: Sendable {
        /// The stream is open.
        case connected
        /// A coalesced or live system event; `id` on the last event of a hand-over.
        case system(CoalescedNotification, id: Int64?)
        /// A fired local notification from the inbox; its id is its ``InboxItem/sequence``.
        case notification(InboxItem)
        /// The backlog's hand-over id, after everything it covers.
        case handedOver(backlogSequence: Int64)
        case heartbeat
        /// The last frame when the server ends the stream: when the client should reconnect.
        case reconnect(after: Duration)
    }

    /// The node is stopping and takes no new streams.
    public struct Stopping: Error {}

    private let coalescer: Coalescer
    private let app: App
    private let device: Device
    private let subscription: UUID
    private let messages: AsyncStream<LiveMessage>
    private let wake: WakeResult
    private let heartbeat: Duration
    private let logger: Logger

    /// Subscribes to the device's live messages, then wakes it (so nothing handed over after the
    /// wake is missed): to `.active` when `foreground`, else to the background unless awake.
    ///
    /// - Parameter lastEventID: the last id a reconnecting client received: what it acknowledges.
    /// - Throws: ``Stopping``; what the wake throws (the subscription is dropped then).
    public static func open(_ coalescer: Coalescer, app: App, device: Device, foreground: Bool,
                            acknowledging lastEventID: Int64?, heartbeat: Duration, logger: Logger) async throws -> EventSession {
        let streams = coalescer.streams
        let id: UUID
        let messages: AsyncStream<LiveMessage>
        do {
            (id, messages) = try await streams.subscribe(appID: app.id, deviceID: device.id)
        } catch is LiveStreams.Stopping {
            throw Stopping()
        }
        let state: LifecycleState = foreground ? .active : (device.state.isAwake ? device.state : .background)
        do {
            let wake = try await coalescer.move(app: app, deviceID: device.id, to: state, drain: true, acknowledging: lastEventID)
            return EventSession(coalescer: coalescer, app: app, device: device, subscription: id, messages: messages,
                                wake: wake, heartbeat: heartbeat, logger: logger)
        } catch {
            await streams.unsubscribe(appID: app.id, deviceID: device.id, id: id)
            throw error
        }
    }

    /// Sends the stream's frames through `send` until the client goes or the node ends the
    /// stream, then `finish`es it, and puts the device to sleep if this was its last stream.
    public func run(send: (Frame) async throws -> Void, finish: () async throws -> Void) async {
        let (streams, app, device, id, heartbeat) = (coalescer.streams, app, device, subscription, heartbeat)
        let pinger = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: heartbeat)
                await streams.ping(appID: app.id, deviceID: device.id, id: id)
            }
        }
        do {
            try await stream(send)
            try await finish()
        } catch {
            logger.debug("event stream closed", metadata: ["device": "\(device.id)", "error": "\(error)"])
        }
        pinger.cancel()
        if await streams.unsubscribe(appID: app.id, deviceID: device.id, id: id) {
            // As iOS does: a closed app goes to the background, then is suspended. In a task of its
            // own, since storage refuses to start work for a cancelled task.
            let coalescer = self.coalescer
            await Task {
                _ = try? await coalescer.move(app: app, deviceID: device.id, to: .background, drain: false)
                _ = try? await coalescer.move(app: app, deviceID: device.id, to: .suspended, drain: false)
            }.value
        }
    }

    private func stream(_ send: (Frame) async throws -> Void) async throws {
        try await send(.connected)
        for notification in wake.notifications { try await send(.system(notification, id: nil)) }
        for item in wake.inbox { try await send(.notification(item)) }
        // The backlog's id comes last, after the older inbox ids, so a client's Last-Event-ID
        // acknowledges the backlog only once it has read everything above.
        if let sequence = wake.backlogSequence { try await send(.handedOver(backlogSequence: sequence)) }
        // What the wake handed over. Live events handed over before it are in its backlog (until
        // acknowledged, a wake hands their net change over again); what comes later is read from
        // the store above it.
        var lastSent = max(wake.inbox.last?.sequence ?? -1, wake.backlogSequence ?? -1)
        for await message in messages {
            switch message {
            case .handedOver(let upTo):
                guard upTo > lastSent else { continue }
                guard let sent = try await sendHandedOver(after: lastSent, send) else { return }
                lastSent = sent
            case .heartbeat:
                try await send(.heartbeat)
            case .closing(let retryAfter):
                return try await send(.reconnect(after: retryAfter))
            }
        }
    }

    /// Sends what the device was handed above `lastSent`, inbox items and live events in id
    /// order, and returns the last id sent; nil when the stream must end: the store could not be
    /// read, or live events it had not read were forgotten. Nothing is lost then: the client
    /// reconnects, and its wake hands everything over.
    private func sendHandedOver(after lastSent: Int64, _ send: (Frame) async throws -> Void) async throws -> Int64? {
        let handed: HandedOver
        do {
            handed = try await coalescer.handedOver(appID: app.id, deviceID: device.id, after: lastSent)
        } catch {
            logger.warning("event stream could not read what the device was handed; ending it",
                           metadata: ["device": "\(device.id)", "error": "\(error)"])
            try await send(.reconnect(after: .seconds(1)))
            return nil
        }
        guard !handed.missedLive else {
            logger.info("event stream fell behind its live events; ending it", metadata: ["device": "\(device.id)"])
            try await send(.reconnect(after: .zero))
            return nil
        }
        var sent = lastSent
        var live = handed.live[...]
        func sendLive(_ batch: LiveHandOvers.Batch) async throws {
            for (index, event) in batch.events.enumerated() {
                try await send(.system(CoalescedNotification(kind: event.kind, key: event.key, value: event.value, count: 1),
                                       id: index == batch.events.count - 1 ? batch.sequence : nil))
            }
            sent = batch.sequence
        }
        for item in handed.inbox {
            guard let sequence = item.sequence else { continue }
            while let batch = live.first, batch.sequence < sequence {
                try await sendLive(batch)
                live = live.dropFirst()
            }
            try await send(.notification(item))
            sent = sequence
        }
        for batch in live { try await sendLive(batch) }
        return sent
    }
}
