import HeraldHTTP2

/// A few multiplexed HTTP/2 connections to one APNs endpoint, opened on demand and replaced when
/// they die. Each carries up to the server's MAX_CONCURRENT_STREAMS; a new one is opened only
/// when every open one is full, up to `size`.
actor APNsConnectionPool {
    private let host: String
    private let port: Int
    private let tls: TLSConfiguration
    private let size: Int
    private let connectTimeout: Duration
    private var connections: [HTTP2ClientConnection] = []
    private var opening: Task<HTTP2ClientConnection, any Error>?

    init(host: String, port: Int, tls: TLSConfiguration, size: Int, connectTimeout: Duration = .seconds(10)) {
        self.host = host
        self.port = port
        self.tls = tls
        self.size = max(1, size)
        self.connectTimeout = connectTimeout
    }

    /// The least busy usable connection, or a new one when all are full and there is room.
    func connection() async throws -> HTTP2ClientConnection {
        connections.removeAll { !$0.isUsable }
        let least = connections.min { load($0) < load($1) }
        if let least, load(least) < least.maxConcurrentStreams || connections.count >= size {
            return least
        }
        if let opening {
            return try await opening.value
        }
        let (host, port, tls, timeout) = (self.host, self.port, self.tls, connectTimeout)
        let task = Task { try await HTTP2ClientConnection.connect(host: host, port: port, tls: tls, timeout: timeout) }
        opening = task
        do {
            let connection = try await task.value
            opening = nil
            connections.append(connection)
            return connection
        } catch {
            opening = nil
            throw error
        }
    }

    var openConnections: Int { connections.filter(\.isUsable).count }

    /// Closes every connection and waits until each one's loop thread let go of it.
    func closeAll() async {
        let closing = connections
        connections.removeAll()
        for connection in closing { await connection.shutdown() }
    }

    private func load(_ connection: HTTP2ClientConnection) -> Int {
        connection.openStreams + connection.queuedRequests
    }
}
