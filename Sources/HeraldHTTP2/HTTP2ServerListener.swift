import Synchronization

/// The listening socket on the server's event loop: accepts connections and tracks them so
/// shutdown can close every one. Confined to the loop thread (except `openConnections`).
final class HTTP2ServerListener: EventLoopChannel, @unchecked Sendable {
    /// Readable from any thread, so a graceful shutdown can wait for connections to drain.
    let openConnections = Atomic<Int>(0)
    private let loop: EventLoop
    private let socket: Socket
    private let tlsContext: TLSContext
    private let settings: HTTP2ServerSettings
    private let handler: HTTP2ServerChannel.Handler
    private var connections: [ObjectIdentifier: HTTP2ServerChannel] = [:]
    private var nextConnectionID = 1

    init(loop: EventLoop, socket: Socket, tlsContext: TLSContext, settings: HTTP2ServerSettings,
         handler: @escaping HTTP2ServerChannel.Handler) {
        self.loop = loop
        self.socket = socket
        self.tlsContext = tlsContext
        self.settings = settings
        self.handler = handler
    }

    var fd: Int32 { socket.fd }
    var wantsRead: Bool { socket.fd >= 0 }
    var wantsWrite: Bool { false }
    var nextDeadline: MonotonicTime? { nil }
    func writable() {}
    func tick(now: MonotonicTime) {}
    func flushNow() {}

    func readable() {
        for _ in 0..<64 {
            guard let client = socket.accept() else { return }
            let channel = HTTP2ServerChannel(loop: loop, tlsContext: tlsContext, connectionID: nextConnectionID,
                                             settings: settings, handler: handler) { [weak self] closed in
                guard let self else { return }
                self.connections[ObjectIdentifier(closed)] = nil
                self.openConnections.store(self.connections.count, ordering: .relaxed)
            }
            nextConnectionID += 1
            connections[ObjectIdentifier(channel)] = channel
            openConnections.store(connections.count, ordering: .relaxed)
            channel.adopt(client)
        }
    }

    private func stopAccepting() {
        loop.deregister(self)
        socket.close()
    }

    /// Graceful first step: stop accepting and send GOAWAY after the requests already being
    /// handled; each connection closes itself once those are answered.
    func drain() {
        stopAccepting()
        for channel in Array(connections.values) { channel.goAway(lastStreamID: nil, errorCode: 0) }
    }

    /// Stops accepting and closes every connection (each gets a GOAWAY first).
    func shutdown() {
        stopAccepting()
        for channel in Array(connections.values) { channel.shutdown() }
        connections.removeAll()
        openConnections.store(0, ordering: .relaxed)
    }

    func loopStopping() { shutdown() }
}
