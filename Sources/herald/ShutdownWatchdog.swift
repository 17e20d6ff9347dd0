import Foundation

/// Keeps a stop bounded whatever the services do: after the first SIGTERM or SIGINT the process
/// exits on its own once `bound` has passed, and a second signal exits at once. Work the node
/// accepted is durable before it answered, so an exit here loses nothing: what it held stays
/// pending for another node or the next start.
final class ShutdownWatchdog {
    private let sources: [any DispatchSourceSignal]

    init(bound: Duration) {
        let queue = DispatchQueue(label: "herald.shutdown-watchdog")
        let signalled = ManagedAtomicFlag()
        sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if signalled.set() {
                    FileHandle.standardError.write(Data("herald: second signal; exiting now\n".utf8))
                    exit(1)
                }
                let seconds = Double(bound.components.seconds) + Double(bound.components.attoseconds) / 1e18
                queue.asyncAfter(deadline: .now() + seconds) {
                    FileHandle.standardError.write(Data("herald: the stop took longer than its bound; exiting\n".utf8))
                    exit(1)
                }
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

/// A flag set once, read from the watchdog's serial queue only.
private final class ManagedAtomicFlag: @unchecked Sendable {
    private var isSet = false

    /// Sets the flag; returns whether it was already set.
    func set() -> Bool {
        defer { isSet = true }
        return isSet
    }
}
