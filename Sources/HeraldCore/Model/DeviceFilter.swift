/// Which devices a device listing returns.
public struct DeviceFilter: Sendable, Equatable {
    public var platform: Platform?
    public var state: LifecycleState?

    public init(platform: Platform? = nil, state: LifecycleState? = nil) {
        self.platform = platform
        self.state = state
    }
}
