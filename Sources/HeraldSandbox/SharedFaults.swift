import Synchronization

/// The faults in effect, shared by the request handler, the admin API and the library API.
/// Each request reads one snapshot, so a change never applies half-way through a request.
final class SharedFaults: Sendable {
    private let faults: Mutex<SandboxFaults>

    init(_ initial: SandboxFaults) {
        faults = Mutex(initial)
    }

    var current: SandboxFaults {
        get { faults.withLock { $0 } }
        set { faults.withLock { $0 = newValue } }
    }
}
