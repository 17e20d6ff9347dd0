import HeraldCore
import HeraldStorage

/// What a device gets when it wakes: its new state, the coalesced backlog, then its inbox.
public struct WakeResult: Sendable {
    public var device: Device
    /// True when the device went from asleep to awake (or was woken explicitly).
    public var woke: Bool
    public var notifications: [CoalescedNotification]
    /// The sequence id that acknowledges `notifications`; nil when there were none.
    public var backlogSequence: Int64?
    public var inbox: [InboxItem]

    public init(device: Device, woke: Bool, notifications: [CoalescedNotification] = [], backlogSequence: Int64? = nil,
                inbox: [InboxItem] = []) {
        self.device = device
        self.woke = woke
        self.notifications = notifications
        self.backlogSequence = backlogSequence
        self.inbox = inbox
    }
}
