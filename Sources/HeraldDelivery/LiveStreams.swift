import Foundation
import HeraldCore
import HeraldStorage

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
public actor LiveStreams {
    public static let bufferLimit = 10_000

    private struct DeviceKey: Hashable {
        var appID: String
        var deviceID: String
    }

    private var subscribers: [DeviceKey: [UUID: AsyncStream<LiveMessage>.Continuation]] = [:]

    public init() {}

    /// Opens a stream for a device. Messages sent from now on are buffered until read.
    public func subscribe(appID: String, deviceID: String) -> (id: UUID, messages: AsyncStream<LiveMessage>) {
        let (stream, continuation) = AsyncStream.makeStream(of: LiveMessage.self,
                                                            bufferingPolicy: .bufferingOldest(Self.bufferLimit))
        let id = UUID()
        subscribers[DeviceKey(appID: appID, deviceID: deviceID), default: [:]][id] = continuation
        return (id, stream)
    }

    /// Closes one stream. Returns true when the device has no stream left.
    @discardableResult
    public func unsubscribe(appID: String, deviceID: String, id: UUID) -> Bool {
        let key = DeviceKey(appID: appID, deviceID: deviceID)
        subscribers[key]?.removeValue(forKey: id)?.finish()
        if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
        return subscribers[key] == nil
    }

    /// Sends a heartbeat to one stream.
    public func ping(appID: String, deviceID: String, id: UUID) {
        _ = subscribers[DeviceKey(appID: appID, deviceID: deviceID)]?[id]?.yield(.heartbeat)
    }

    /// For each device, whether it has a live stream: one call for a delivery batch.
    public func connected(_ devices: [Device]) -> [Bool] {
        devices.map { subscribers[DeviceKey(appID: $0.appID, deviceID: $0.id)] != nil }
    }

    public func isConnected(appID: String, deviceID: String) -> Bool {
        subscribers[DeviceKey(appID: appID, deviceID: deviceID)] != nil
    }

    /// Hands a message to every stream of the device. Returns false when none took it.
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
