import Foundation
import HeraldCore
import HeraldStorage
import Logging

/// What travels on a device's live event stream after its backlog.
public enum LiveMessage: Sendable {
    case event(SystemEvent)
    /// A fired notification as the device's inbox holds it (with its sequence id), where it stays
    /// until acknowledged: a stream that drops before the client read it loses nothing.
    case notification(InboxItem)
    /// Keeps an idle connection open, and reveals one whose client has gone.
    case heartbeat
}

/// The devices connected to their live event stream, and a bounded queue per connection.
///
/// A connection that cannot keep up is closed rather than allowed to grow without bound; the
/// client reconnects and receives what it missed as its coalesced backlog.
///
/// With a ``StreamDirectory`` (several nodes on one store), a device's stream may be held by
/// another node: streams opened here are recorded in the directory, a message for a device
/// streamed elsewhere is relayed there, and messages relayed here (``receive(_:)``) go to the
/// streams this node holds.
public actor LiveStreams {
    public static let bufferLimit = 10_000

    private struct DeviceKey: Hashable {
        var appID: String
        var deviceID: String
    }

    private var subscribers: [DeviceKey: [UUID: AsyncStream<LiveMessage>.Continuation]] = [:]
    private let directory: (any StreamDirectory)?
    private let logger: Logger

    public init(directory: (any StreamDirectory)? = nil, logger: Logger = Logger(label: "herald.live")) {
        self.directory = directory
        self.logger = logger
    }

    /// Opens a stream for a device. Messages sent from now on are buffered until read.
    ///
    /// - Throws: the directory's error when the stream cannot be recorded for the other nodes
    ///   (nothing is left open then).
    public func subscribe(appID: String, deviceID: String) async throws -> (id: UUID, messages: AsyncStream<LiveMessage>) {
        let (stream, continuation) = AsyncStream.makeStream(of: LiveMessage.self,
                                                            bufferingPolicy: .bufferingOldest(Self.bufferLimit))
        let id = UUID()
        let key = DeviceKey(appID: appID, deviceID: deviceID)
        subscribers[key, default: [:]][id] = continuation
        do {
            try await directory?.streamOpened(id, appID: appID, deviceID: deviceID)
        } catch {
            remove(id, of: key)
            throw error
        }
        return (id, stream)
    }

    /// Closes one stream. Returns true when the device has no stream left, here or elsewhere.
    @discardableResult
    public func unsubscribe(appID: String, deviceID: String, id: UUID) async -> Bool {
        let key = DeviceKey(appID: appID, deviceID: deviceID)
        remove(id, of: key)
        guard let directory else { return subscribers[key] == nil }
        do {
            try await directory.streamClosed(id)
        } catch {
            logger.warning("could not forget a closed stream; it counts until this node's heartbeat stops",
                           metadata: ["device": "\(deviceID)", "error": "\(error)"])
        }
        return await connected([(appID, deviceID)]) == [false]
    }

    private func remove(_ id: UUID, of key: DeviceKey) {
        subscribers[key]?.removeValue(forKey: id)?.finish()
        if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
    }

    /// Sends a heartbeat to one stream.
    public func ping(appID: String, deviceID: String, id: UUID) {
        _ = subscribers[DeviceKey(appID: appID, deviceID: deviceID)]?[id]?.yield(.heartbeat)
    }

    /// For each device, whether it has a live stream, here or on another node: one call (one
    /// store read at most) for a delivery batch.
    public func connected(_ devices: [(appID: String, deviceID: String)]) async -> [Bool] {
        var connected = devices.map { subscribers[DeviceKey(appID: $0.appID, deviceID: $0.deviceID)] != nil }
        let elsewhere = connected.indices.filter { !connected[$0] }
        guard let directory, !elsewhere.isEmpty else { return connected }
        do {
            let streamed = try await directory.streamedElsewhere(elsewhere.map { devices[$0] })
            for (index, streamed) in zip(elsewhere, streamed) { connected[index] = streamed }
        } catch {
            // Unknown counts as not connected: the message then takes the push or inbox path.
            logger.warning("could not learn which devices stream on other nodes", metadata: ["error": "\(error)"])
        }
        return connected
    }

    public func connected(_ devices: [Device]) async -> [Bool] {
        await connected(devices.map { ($0.appID, $0.id) })
    }

    public func isConnected(appID: String, deviceID: String) async -> Bool {
        await connected([(appID, deviceID)]) == [true]
    }

    /// Hands fired notifications (stored in their inbox, with sequence ids) to their devices'
    /// streams: here, or relayed to the node holding the stream. Returns, for each, whether a
    /// stream took it or word of it went out; the inbox keeps it either way until acknowledged.
    public func deliver(_ items: [InboxItem]) async -> [Bool] {
        var delivered = [Bool](repeating: false, count: items.count)
        var relayed: [(index: Int, message: RelayedLiveMessage)] = []
        for (index, item) in items.enumerated() {
            let (appID, deviceID) = (item.occurrence.appID, item.occurrence.deviceID)
            if send(.notification(item), appID: appID, deviceID: deviceID) {
                delivered[index] = true
            } else if let sequence = item.sequence {
                relayed.append((index, RelayedLiveMessage(appID: appID, deviceID: deviceID,
                                                          body: .notification(sequence: sequence))))
            }
        }
        for index in await relay(relayed) { delivered[index] = true }
        return delivered
    }

    /// Hands live events to the device's streams, here or on another node. Returns the events
    /// that reached no stream, for the caller to queue.
    public func deliver(events: [SystemEvent], appID: String, deviceID: String) async -> [SystemEvent] {
        var relayed: [(index: Int, message: RelayedLiveMessage)] = []
        var undelivered = Set(events.indices)
        for (index, event) in events.enumerated() {
            if send(.event(event), appID: appID, deviceID: deviceID) {
                undelivered.remove(index)
            } else {
                relayed.append((index, RelayedLiveMessage(appID: appID, deviceID: deviceID, body: .event(event))))
            }
        }
        for index in await relay(relayed) { undelivered.remove(index) }
        return undelivered.sorted().map { events[$0] }
    }

    /// Relays messages through the directory; returns the indices whose word went out.
    private func relay(_ messages: [(index: Int, message: RelayedLiveMessage)]) async -> [Int] {
        guard let directory, !messages.isEmpty else { return [] }
        do {
            let refused = Set(try await directory.relay(messages.map(\.message)))
            return messages.filter { !refused.contains($0.message) }.map(\.index)
        } catch {
            logger.warning("could not relay live messages to other nodes", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Messages another node relayed: those for devices streaming here go to their streams,
    /// notifications read from the inbox (still there: not yet acknowledged).
    public func receive(_ relayed: [RelayedLiveMessage]) async {
        var sequences: [DeviceKey: [Int64]] = [:]
        for message in relayed {
            let key = DeviceKey(appID: message.appID, deviceID: message.deviceID)
            guard subscribers[key] != nil else { continue }
            switch message.body {
            case .event(let event):
                send(.event(event), appID: key.appID, deviceID: key.deviceID)
            case .notification(let sequence):
                sequences[key, default: []].append(sequence)
            }
        }
        guard let directory else { return }
        for (key, sequences) in sequences {
            do {
                for item in try await directory.inboxItems(appID: key.appID, deviceID: key.deviceID, sequences: sequences) {
                    send(.notification(item), appID: key.appID, deviceID: key.deviceID)
                }
            } catch {
                // They stay in the inbox, handed over at the next wake or reconnect.
                logger.warning("could not read relayed notifications", metadata: ["device": "\(key.deviceID)", "error": "\(error)"])
            }
        }
    }

    /// Hands a message to every stream of the device on this node. Returns false when none took it.
    @discardableResult
    public func send(_ message: LiveMessage, appID: String, deviceID: String) -> Bool {
        let key = DeviceKey(appID: appID, deviceID: deviceID)
        guard let streams = subscribers[key] else { return false }
        var delivered = false
        for (id, continuation) in streams {
            switch continuation.yield(message) {
            case .enqueued:
                delivered = true
            case .dropped, .terminated:
                // Too far behind, or gone: close it so the client reconnects for a backlog.
                continuation.finish()
                subscribers[key]?[id] = nil
            @unknown default:
                break
            }
        }
        if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
        return delivered
    }
}
