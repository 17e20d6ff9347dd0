import HeraldDelivery
import ServiceLifecycle

/// Ends every live event stream as soon as the node starts to stop, before the HTTP server waits
/// for its connections to close: an open stream would otherwise hold the stop forever. Each
/// stream ends with a `retry:` hint, and no new one opens.
public struct StreamDrain: Service {
    let streams: LiveStreams
    let retryAfter: Duration

    public init(streams: LiveStreams, retryAfter: Duration = .seconds(1)) {
        self.streams = streams
        self.retryAfter = retryAfter
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await streams.closeAll(retryAfter: retryAfter)
    }
}
