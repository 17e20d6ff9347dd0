import HeraldHTTP2
import Synchronization

/// APNs advertises MAX_CONCURRENT_STREAMS = 1 on a new connection and raises it once the
/// connection has proved itself with an accepted push; clients must cope with both values.
/// This remembers which connections were raised, so each gets exactly one SETTINGS update.
final class StreamLimitRaiser: Sendable {
    static let initialLimit = 1
    static let raisedLimit = 1000

    /// Connection ids are unique per server and small, so a set of them is cheap even for a
    /// sandbox that runs for days.
    private let raised = Mutex<Set<Int>>([])

    func noteSuccess(on context: HTTP2ServerConnectionContext) {
        let first = raised.withLock { $0.insert(context.connectionID).inserted }
        if first { context.setMaxConcurrentStreams(Self.raisedLimit) }
    }
}
