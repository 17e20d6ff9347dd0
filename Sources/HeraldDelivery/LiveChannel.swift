import HeraldCore
import HeraldStorage

/// The devices' live streams, as delivery sees them: whether a device streams, and word to its
/// streams that inbox items wait for them. The coalescer's sessions (``LiveStreams`` in
/// HeraldCoalescer) implement it.
public protocol LiveChannel: Sendable {
    /// For each device, whether it has a live stream, here or on another node.
    func connected(_ devices: [Device]) async -> [Bool]
    /// Tells the streams of the items' devices to read them from the inbox. Returns, for each,
    /// whether a stream was told or word of it went out.
    func deliver(_ items: [InboxItem]) async -> [Bool]
}
