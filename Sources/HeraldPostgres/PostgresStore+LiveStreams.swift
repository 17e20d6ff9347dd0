import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

/// Live streams across nodes: each node records the streams it holds in `live_stream`, and a
/// live message produced on another node reaches it by `NOTIFY herald_live`, as a sequence id:
/// the inbox row or the live hand-over, committed first, is the message.
extension PostgresStore: StreamDirectory {
    static let liveChannel = "herald_live"

    public func streamOpened(_ id: UUID, appID: String, deviceID: String) async throws {
        let now = Date().millisecondsSince1970
        try await read { connection in
            try await connection.run("""
                INSERT INTO live_stream (id, app_id, device_id, node_id, opened_at)
                VALUES (\(id.uuidString), \(appID), \(deviceID), \(self.nodeID), \(now))
                ON CONFLICT (id) DO NOTHING
                """, logger: self.logger)
        }
    }

    public func streamClosed(_ id: UUID) async throws {
        try await read { connection in
            try await connection.run("DELETE FROM live_stream WHERE id = \(id.uuidString)", logger: self.logger)
        }
    }

    /// Forgets the streams this node held before it restarted: their connections are gone.
    func forgetOwnStreams() async throws {
        try await read { connection in
            try await connection.run("DELETE FROM live_stream WHERE node_id = \(self.nodeID)", logger: self.logger)
        }
    }

    public func streamedElsewhere(_ devices: [(appID: String, deviceID: String)]) async throws -> [Bool] {
        guard !devices.isEmpty else { return [] }
        let rows = try await read { connection in
            try await connection.rows("""
                SELECT DISTINCT s.app_id, s.device_id FROM live_stream s JOIN node n ON n.id = s.node_id
                WHERE s.node_id <> \(self.nodeID) AND n.heartbeat_at >= \(unescaped: Self.databaseNow) - \(self.leaseMilliseconds)
                    AND (s.app_id, s.device_id) IN (
                        SELECT * FROM unnest(\(devices.map(\.appID))::text[], \(devices.map(\.deviceID))::text[]))
                """, logger: self.logger)
        }
        var streamed: Set<[String]> = []
        for row in rows { streamed.insert([try row.value(0, as: String.self), try row.value(1, as: String.self)]) }
        return devices.map { streamed.contains([$0.appID, $0.deviceID]) }
    }

    /// Sends the messages in as few notifications as fit PostgreSQL's payload limit. A message
    /// too large for one notification on its own (a large event value) is refused: it is among
    /// those returned, and the caller keeps it another way.
    public func relay(_ messages: [RelayedLiveMessage]) async throws -> [RelayedLiveMessage] {
        let (payloads, refused) = try Self.livePayloads(messages)
        guard !payloads.isEmpty else { return refused }
        try await read { connection in
            for payload in payloads {
                try await connection.run("SELECT pg_notify(\(Self.liveChannel), \(payload))", logger: self.logger)
            }
        }
        return refused
    }

    /// JSON arrays of messages, each under the payload limit; and the messages too large alone.
    static func livePayloads(_ messages: [RelayedLiveMessage]) throws -> (payloads: [String], refused: [RelayedLiveMessage]) {
        var payloads: [String] = []
        var refused: [RelayedLiveMessage] = []
        var current: [String] = []
        var size = 2
        for message in messages {
            let text = try json(message)
            guard text.utf8.count + 2 < maximumPayload else {
                refused.append(message)
                continue
            }
            if !current.isEmpty, size + text.utf8.count + 1 >= maximumPayload {
                payloads.append("[" + current.joined(separator: ",") + "]")
                current = []
                size = 2
            }
            current.append(text)
            size += text.utf8.count + 1
        }
        if !current.isEmpty { payloads.append("[" + current.joined(separator: ",") + "]") }
        return (payloads, refused)
    }

    public func listenForRelayed(_ received: @escaping @Sendable ([RelayedLiveMessage]) async -> Void) async throws {
        try await listen(on: Self.liveChannel) { [logger] payload in
            guard let messages = try? JSONDecoder().decode([RelayedLiveMessage].self, from: Data(payload.utf8)) else {
                logger.warning("ignored a live message that is not Herald's", metadata: ["channel": "\(Self.liveChannel)"])
                return
            }
            await received(messages)
        }
    }

}
