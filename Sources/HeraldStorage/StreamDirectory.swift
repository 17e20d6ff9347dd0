import Foundation
import HeraldCore

/// A live message on its way to a device's stream held by another node: word that the device
/// was handed something up to a sequence id (an inbox item, or reported events). The message
/// is in the store; the receiving node's streams read it there, so word lost on the way loses
/// nothing but time.
public struct RelayedLiveMessage: Hashable, Sendable, Codable {
    public enum Body: Hashable, Sendable, Codable {
        case handedOver(upTo: Int64)
    }

    public var appID: String
    public var deviceID: String
    public var body: Body

    public init(appID: String, deviceID: String, body: Body) {
        self.appID = appID
        self.deviceID = deviceID
        self.body = body
    }
}

/// Where devices' live streams are held, when that may be another node sharing the store
/// (PostgreSQL). A live message produced on one node reaches a stream on another through the
/// store: the inbox row is committed first, then word goes out to the other nodes. SQLite, used
/// by one node, has no directory: every stream is local.
public protocol StreamDirectory: Sendable {
    /// Records that this node holds stream `id` of the device.
    func streamOpened(_ id: UUID, appID: String, deviceID: String) async throws
    /// Forgets stream `id` of this node.
    func streamClosed(_ id: UUID) async throws
    /// For each device, whether a live node other than this one holds a stream for it. Streams of
    /// a node whose heartbeat stopped do not count.
    func streamedElsewhere(_ devices: [(appID: String, deviceID: String)]) async throws -> [Bool]
    /// Sends `messages` to the nodes holding the devices' streams. Returns those it could not
    /// carry (too large for word between nodes), for the caller to keep another way.
    func relay(_ messages: [RelayedLiveMessage]) async throws -> [RelayedLiveMessage]
    /// Calls `received` with messages relayed by other nodes, until cancelled or disconnected.
    func listenForRelayed(_ received: @escaping @Sendable ([RelayedLiveMessage]) async -> Void) async throws
}
