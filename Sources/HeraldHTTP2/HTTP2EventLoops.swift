import Foundation
import Synchronization

/// A fixed set of event-loop threads that client connections share, one per core by default:
/// many connections then cost a few threads and one `epoll_wait` per loop iteration, not a thread
/// and a wake-up each.
///
/// ```swift
/// let loops = HTTP2EventLoops()
/// let connection = try await HTTP2ClientConnection.connect(host: host, port: 443, tls: tls,
///                                                         timeout: .seconds(10), loops: loops)
/// ...
/// await loops.shutdown()
/// ```
public final class HTTP2EventLoops: Sendable {
    let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)

    /// - Parameter count: threads; defaults to the number of active cores.
    public init(count: Int = ProcessInfo.processInfo.activeProcessorCount, name: String = "h2-client") {
        loops = (0..<max(1, count)).map { EventLoop(name: "\(name) \($0)") }
    }

    /// The loop for the next connection, round robin.
    func next() -> EventLoop {
        loops[nextIndex.add(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Runs blocking work (reading key files, building an `SSL_CTX`) on a loop thread, so it
    /// never occupies a thread of Swift's cooperative pool.
    ///
    /// - Throws: what `work` throws, or `HTTP2Error.invalidConfiguration` once the loops stopped.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = next().execute { continuation.resume(with: Result { try work() }) }
            if !accepted { continuation.resume(throwing: HTTP2Error.invalidConfiguration("the event loops are shut down")) }
        }
    }

    /// Stops every loop; connections still on them close and fail what they carry.
    public func shutdown() async {
        for loop in loops { await loop.shutdown() }
    }
}

/// One credential's TLS setup (trust roots, client identity, ALPN) as one `SSL_CTX`, loaded once
/// and shared by every connection that presents it.
public final class HTTP2ClientTLS: Sendable {
    let context: TLSContext
    public let configuration: TLSConfiguration

    /// Loads everything the configuration names (CA file, client identity).
    ///
    /// - Throws: `HTTP2Error.tls` or `.invalidConfiguration`, saying what could not be loaded.
    public init(_ configuration: TLSConfiguration) throws(HTTP2Error) {
        context = try TLSContext(client: configuration)
        self.configuration = configuration
    }
}
