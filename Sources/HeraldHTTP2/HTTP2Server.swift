import Synchronization

/// An HTTP/2-over-TLS server: one listening socket and one event loop thread for all of its
/// connections, one nghttp2 server session per connection, and one task per request.
public final class HTTP2Server: Sendable {
    public typealias Handler = @Sendable (HTTP2ServerRequest, HTTP2ServerConnectionContext) async -> HTTP2Response

    public let host: String
    private let requestedPort: Int
    private let tls: TLSServerConfiguration
    private let settings: HTTP2ServerSettings
    private let handler: Handler
    private let boundPort = Atomic<Int>(0)
    private let running = Mutex<Running?>(nil)

    private struct Running: Sendable {
        let loop: EventLoop
        let listener: HTTP2ServerListener
    }

    /// - Parameter port: 0 binds an ephemeral port; read it back from `port` after `start()`.
    public init(host: String = "127.0.0.1", port: Int = 0, tls: TLSServerConfiguration,
                settings: HTTP2ServerSettings = HTTP2ServerSettings(), handler: @escaping Handler) {
        self.host = host
        self.requestedPort = port
        self.tls = tls
        self.settings = settings
        self.handler = handler
    }

    /// The bound port (valid after `start()`).
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// Loads the certificate, binds and starts accepting. Throws on bad TLS files or a busy port.
    public func start() async throws {
        let context = try TLSContext(server: tls)
        let addresses = try SocketAddress.resolve(host: host, port: requestedPort, passive: true)
        guard let address = addresses.first else { throw HTTP2Error.connectFailed("no address for \(host)") }
        let socket = try Socket.listen(on: address)
        boundPort.store(socket.localPort, ordering: .relaxed)
        let loop = EventLoop(name: "h2-server \(host):\(socket.localPort)")
        let listener = HTTP2ServerListener(loop: loop, socket: socket, tlsContext: context, settings: settings, handler: handler)
        let alreadyRunning = running.withLock { current -> Bool in
            if current != nil { return true }
            current = Running(loop: loop, listener: listener)
            return false
        }
        if alreadyRunning {
            loop.stop()
            throw HTTP2Error.invalidConfiguration("the server is already started")
        }
        loop.execute { loop.register(listener) }
    }

    /// Stops the server. With a grace period, it first stops accepting and sends GOAWAY, then
    /// waits up to `gracePeriod` for in-flight requests to be answered. After that (or at once
    /// without a grace period) it closes every connection and waits for the loop thread to end.
    public func shutdown(gracePeriod: Duration = .zero) async {
        guard let current = running.withLock({ current -> Running? in
            defer { current = nil }
            return current
        }) else { return }
        let listener = current.listener
        if gracePeriod > .zero {
            current.loop.execute { listener.drain() }
            let deadline = ContinuousClock.now + gracePeriod
            while listener.openConnections.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        current.loop.execute { listener.shutdown() }
        await current.loop.shutdown()
    }
}
