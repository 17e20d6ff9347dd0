import Foundation
import HeraldStorage
import Logging
import PostgresNIO
import Synchronization

/// Word between nodes of what each one armed: a write that creates or moves a timer entry
/// (schedule, re-time, a repeating notification advanced by a claim) sends the instants with
/// `NOTIFY herald_armed` in its own transaction, so they arrive only if it commits, and every
/// other node arms them. Nodes then wake at the instant itself instead of polling for due work.
extension PostgresStore {
    static let armingChannel = "herald_armed"
    /// NOTIFY payloads must stay under 8000 bytes.
    static let maximumPayload = 7_000

    /// Sends the instants of `entries` to the other nodes, inside the caller's transaction.
    func announce(_ entries: [TimerEntry], on connection: PostgresConnection) async throws {
        guard !entries.isEmpty else { return }
        try await announce(Set(entries.map(\.fireAt)).sorted(), on: connection)
    }

    /// Sends `instants` to the other nodes on a pooled connection, outside any write: what
    /// ``ArmingAnnouncer`` batches.
    func announce(_ instants: [Int64]) async throws {
        try await read { connection in try await self.announce(instants, on: connection) }
    }

    /// The instant is all a node needs: its claim reads what is due from the table. Every payload
    /// in one statement, one round trip.
    private func announce(_ instants: [Int64], on connection: PostgresConnection) async throws {
        let payloads = Self.armingPayloads(node: nodeID, instants: instants)
        try await connection.run("SELECT pg_notify(\(Self.armingChannel), p) FROM unnest(\(payloads)::text[]) AS p",
                                 logger: self.logger)
    }

    /// `node\ninstant,instant,...`, split so each payload fits.
    static func armingPayloads(node: String, instants: [Int64]) -> [String] {
        var payloads: [String] = []
        var current = ""
        for instant in instants {
            let text = String(instant)
            if !current.isEmpty, current.utf8.count + text.utf8.count + node.utf8.count >= maximumPayload {
                payloads.append(node + "\n" + current)
                current = ""
            }
            current += current.isEmpty ? text : "," + text
        }
        if !current.isEmpty { payloads.append(node + "\n" + current) }
        return payloads
    }

    /// The sender and the instants of one payload; nil for a payload that is not Herald's.
    static func parseArming(_ payload: String) -> (node: String, instants: [Int64])? {
        guard let newline = payload.firstIndex(of: "\n") else { return nil }
        let instants = payload[payload.index(after: newline)...].split(separator: ",").compactMap { Int64($0) }
        return (String(payload[..<newline]), instants)
    }

    /// Listens, on a connection of its own, for instants other nodes armed, and calls `armed`
    /// with each batch until cancelled or the connection fails (the caller reconnects; the sweep
    /// covers what was sent meanwhile).
    public func listenForArming(_ armed: @escaping @Sendable ([Int64]) async -> Void) async throws {
        try await listen(on: Self.armingChannel) { [nodeID] payload in
            guard let (node, instants) = Self.parseArming(payload), node != nodeID else { return }
            await armed(instants)
        }
    }

    /// Calls `received` with each payload sent on `channel`, in commit order, on a connection of
    /// its own (LISTEN holds it), until cancelled or the connection fails. The connection is
    /// pinged every few seconds with the store call's deadline: one that went silent (no reset,
    /// no answer) fails here within that bound, and the caller reconnects and reads again what
    /// it may have missed.
    func listen(on channel: String, _ received: @escaping @Sendable (String) async -> Void) async throws {
        let connection = try await PostgresConnection.connect(configuration: listenerConfiguration, id: 1, logger: self.logger)
        let timeout = callTimeout
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await connection.listen(on: channel) { notifications in
                        for try await notification in notifications { await received(notification.payload) }
                    }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: Self.listenerPing)
                        let answered = Mutex(false)
                        let ping = Task { try await connection.run("SELECT 1", logger: self.logger); answered.withLock { $0 = true } }
                        try? await Task.sleep(for: timeout)
                        guard answered.withLock({ $0 }) else {
                            ping.cancel()
                            throw StoreDeadlineExceeded()
                        }
                    }
                }
                defer { group.cancelAll() }
                try await group.next()
            }
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw Self.fault(error, statement: "listen(\(channel))")
        }
    }

    /// How often a listening connection is asked whether it still answers.
    static let listenerPing: Duration = .seconds(3)

    /// The listener's own connection, with the same server-side timeouts as the pool's.
    var listenerConfiguration: PostgresConnection.Configuration {
        var configuration = location.connectionConfiguration
        configuration.options.additionalStartupParameters = Self.serverSideTimeouts(callTimeout)
        configuration.options.connectTimeout = .seconds(callTimeout.components.seconds)
        return configuration
    }
}
