import Foundation
import HeraldCore
import Synchronization

/// One broadcast as every Live Activity on its channel received it.
struct BroadcastEntry: Sendable, Equatable {
    var apnsId: String
    var uniqueId: String
    var receivedAt: Date
    var priority: Int
    var collapseId: String?
    var expiration: Int?
    var payload: JSONValue
    var credential: SandboxCredential

    /// What ActivityKit would apply; nil only for a payload the validator would have refused.
    var activityEvent: ActivityEvent? {
        ActivityEvent(payload: payload, apnsId: apnsId, collapseId: collapseId, receivedAt: receivedAt)
    }
}

/// A channel as the admin API lists it (`GET /channels/{bundle}`).
public struct BroadcastChannelSummary: Codable, Sendable, Equatable {
    public var apnsChannelId: String
    public var messageStoragePolicy: Int
    /// How many broadcasts it holds (at most the inbox capacity).
    public var broadcasts: Int
}

/// The iOS 18 broadcast channels APNs keeps for each app, and what was broadcast on each:
/// the channel management API creates, reads and deletes them, and accepted broadcasts are
/// filed here, safe to use from every request task.
///
/// Channel ids are what APNs hands out, base64 of 16 random bytes, unique across apps; a channel
/// belongs to the bundle id it was created for, and is unknown to every other. Each channel keeps
/// at most `capacity` broadcasts, dropping the oldest, as the device inboxes do.
final class BroadcastChannels: Sendable {
    struct Channel: Sendable {
        let id: String
        let bundleID: String
        /// 0: no storage for offline devices; 1: the most recent broadcast is kept for them.
        let messageStoragePolicy: Int
        var broadcasts: [BroadcastEntry] = []

        var summary: BroadcastChannelSummary {
            BroadcastChannelSummary(apnsChannelId: id, messageStoragePolicy: messageStoragePolicy, broadcasts: broadcasts.count)
        }
    }

    /// What creating a channel did.
    enum Creation: Equatable {
        case created(channelID: String)
        /// The app already has `maximumPerApp` channels.
        case limitReached
    }

    /// What filing a broadcast did.
    enum Filing: Equatable {
        case filed
        /// The channel is not the bundle's, or was deleted since the request was checked.
        case notRegistered
    }

    private struct State {
        var channels: [String: Channel] = [:]
        /// Channel ids per bundle id, oldest first, so listings keep creation order.
        var idsByBundle: [String: [String]] = [:]
    }

    private let state = Mutex(State())
    let capacity: Int
    let maximumPerApp: Int

    init(capacity: Int, maximumPerApp: Int) {
        self.capacity = max(1, capacity)
        self.maximumPerApp = max(1, maximumPerApp)
    }

    func create(bundleID: String, messageStoragePolicy: Int) -> Creation {
        state.withLock { state in
            guard state.idsByBundle[bundleID, default: []].count < maximumPerApp else { return .limitReached }
            var id = Self.newChannelID()
            while state.channels[id] != nil { id = Self.newChannelID() }
            state.channels[id] = Channel(id: id, bundleID: bundleID, messageStoragePolicy: messageStoragePolicy)
            state.idsByBundle[bundleID, default: []].append(id)
            return .created(channelID: id)
        }
    }

    /// The channel, if it exists and is `bundleID`'s.
    func channel(_ id: String, bundleID: String) -> Channel? {
        state.withLock { state in state.channels[id].flatMap { $0.bundleID == bundleID ? $0 : nil } }
    }

    /// The channel with this id, whichever app it is for.
    func channel(_ id: String) -> Channel? {
        state.withLock { $0.channels[id] }
    }

    /// Deletes the channel and its broadcasts; false when it is not `bundleID`'s.
    func delete(_ id: String, bundleID: String) -> Bool {
        state.withLock { state in
            guard state.channels[id]?.bundleID == bundleID else { return false }
            state.channels[id] = nil
            state.idsByBundle[bundleID]?.removeAll { $0 == id }
            if state.idsByBundle[bundleID]?.isEmpty == true { state.idsByBundle[bundleID] = nil }
            return true
        }
    }

    /// The app's channels, oldest first.
    func channels(bundleID: String) -> [Channel] {
        state.withLock { state in (state.idsByBundle[bundleID] ?? []).compactMap { state.channels[$0] } }
    }

    /// Files an accepted broadcast; checking and filing under one lock, so a broadcast never lands
    /// on a channel deleted meanwhile.
    func file(_ entry: BroadcastEntry, channelID: String, bundleID: String) -> Filing {
        state.withLock { state in
            guard state.channels[channelID]?.bundleID == bundleID else { return .notRegistered }
            state.channels[channelID]?.broadcasts.append(entry)
            if let count = state.channels[channelID]?.broadcasts.count, count > capacity {
                state.channels[channelID]?.broadcasts.removeFirst(count - capacity)
            }
            return .filed
        }
    }

    /// Forgets every broadcast and keeps the channels, as `DELETE /inbox` forgets what devices
    /// received and keeps their tokens valid.
    func clearBroadcasts() {
        state.withLock { state in
            for id in state.channels.keys { state.channels[id]?.broadcasts.removeAll() }
        }
    }

    /// Base64 of 16 random bytes, the shape of APNs' channel ids.
    static func newChannelID() -> String {
        Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }
}
