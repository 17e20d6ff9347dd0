import HeraldCore
import HeraldStorage

/// What a device was handed above a live stream's cursor and has not acknowledged.
public struct HandedOver: Sendable {
    public var inbox: [InboxItem]
    public var live: [LiveHandOvers.Batch]
    /// Live events above the cursor were forgotten (``LiveHandOvers/limit``): the stream missed
    /// them and must end, so its client wakes and receives their net change.
    public var missedLive: Bool

    public init(inbox: [InboxItem], live: [LiveHandOvers.Batch], missedLive: Bool) {
        self.inbox = inbox
        self.live = live
        self.missedLive = missedLive
    }
}
