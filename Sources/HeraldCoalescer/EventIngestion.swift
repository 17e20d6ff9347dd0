import HeraldCore

/// What happened to a batch of reported events.
public struct EventIngestion: Sendable {
    public var device: Device
    /// Every reported event, as validated.
    public var accepted: [SystemEvent]
    /// Events handed over live, in order; empty when the device is asleep or not streaming.
    public var live: [SystemEvent]
    /// The sequence id they were handed over under: word of it goes to the device's streams.
    public var liveSequence: Int64?
    /// How many were queued for the next wake.
    public var queued: Int
    /// The net change now waiting (a backlog that cancelled out counts as nothing).
    public var backlog: Int

    public init(device: Device, accepted: [SystemEvent], live: [SystemEvent], liveSequence: Int64? = nil, queued: Int, backlog: Int) {
        self.device = device
        self.accepted = accepted
        self.live = live
        self.liveSequence = liveSequence
        self.queued = queued
        self.backlog = backlog
    }
}
