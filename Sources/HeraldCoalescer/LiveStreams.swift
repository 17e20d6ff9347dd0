import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStorage
import Logging

/// What travels on a device's live event stream after its backlog.
public enum LiveMessage: Sendable {
    /// The device was handed inbox items or reported events up to this sequence id. The stream
    /// reads what it has not sent yet from the store, in order, so it never hands over an id
    /// before a lower one; both stay until acknowledged, so a stream that drops loses nothing.
    case handedOver(upTo: Int64)
    /// Keeps an idle connection open, and reveals one whose client has gone.
    case heartbeat
    /// The node is stopping: the stream ends, telling the client when to reconnect.
    case closing(retryAfter: Duration)
}

/// The devices connected to their live event stream, and a bounded queue per connection.
///
/// A connection that cannot keep up is closed rather than allowed to grow without bound; the
/// client reconnects and receives what it missed as its coalesced backlog.
///
/// With a ``StreamDirectory`` (several nodes on one store), a device's stream may be held by
/// another node: streams opened here are recorded in the directory, a message for a device
/// streamed elsewhere is relayed there, and messages relayed here (``receive(_:)``) go to the
/// streams this node holds. Every message is word to read the store: what it announces is
/// stored first and stays until acknowledged.
public actor LiveStreams: LiveChannel {
    public static let bufferLimit = 10_000

    private struct DeviceKey: Hashable {
        var appID: String
        var deviceID: String
    }

    private var subscribers: [DeviceKey: [UUID: AsyncStream<LiveMessage>.Continuation]] = [:]
    /// Set once the node stops: every stream was ended and no new one opens.
    private var closing = false

    /// Opening a stream on a node that is stopping.
    public struct Stopping: Error {}
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
        guard !closing else { throw Stopping() }
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

    /// Ends every stream with a hint to reconnect after `retryAfter` (to another node, or to
    /// this one once it is back), and refuses new ones: a stopping node holds no stream open.
    public func closeAll(retryAfter: Duration) {
        closing = true
        for (_, streams) in subscribers {
            for (_, continuation) in streams {
                continuation.yield(.closing(retryAfter: retryAfter))
                continuation.finish()
            }
        }
    }

    /// Tells every stream held here to read the inbox again: word relayed while the listener
    /// was reconnecting may have been lost.
    public func refreshAll() {
        for (key, _) in subscribers { send(.handedOver(upTo: .max), appID: key.appID, deviceID: key.deviceID) }
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

    /// Tells the streams of fired notifications' devices (the items committed in their inbox,
    /// with sequence ids) to read them: here, or relayed to the node holding the stream. Returns,
    /// for each, whether a stream was told or word of it went out; the inbox keeps it either way
    /// until acknowledged.
    public func deliver(_ items: [InboxItem]) async -> [Bool] {
        var delivered = [Bool](repeating: false, count: items.count)
        var relayed: [(index: Int, message: RelayedLiveMessage)] = []
        for (index, item) in items.enumerated() {
            guard let sequence = item.sequence else { continue }
            let (appID, deviceID) = (item.occurrence.appID, item.occurrence.deviceID)
            if send(.handedOver(upTo: sequence), appID: appID, deviceID: deviceID) {
                delivered[index] = true
            } else {
                relayed.append((index, RelayedLiveMessage(appID: appID, deviceID: deviceID,
                                                          body: .handedOver(upTo: sequence))))
            }
        }
        for index in await relay(relayed) { delivered[index] = true }
        return delivered
    }

    /// Tells every stream of the device, here and on the other nodes, that reported events were
    /// handed over up to `sequence` (``LiveHandOvers``): a device may hold streams on several
    /// nodes at once (a client that reconnected elsewhere before its old stream was noticed
    /// gone), and each writes them, so an acknowledgement through any covers only what it wrote.
    public func announce(sequence: Int64, appID: String, deviceID: String) async {
        send(.handedOver(upTo: sequence), appID: appID, deviceID: deviceID)
        _ = await relay([(0, RelayedLiveMessage(appID: appID, deviceID: deviceID, body: .handedOver(upTo: sequence)))])
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

    /// Messages another node relayed: those for devices streaming here go to their streams, as
    /// word to read the store.
    public func receive(_ relayed: [RelayedLiveMessage]) {
        for message in relayed {
            switch message.body {
            case .handedOver(let sequence):
                send(.handedOver(upTo: sequence), appID: message.appID, deviceID: message.deviceID)
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
