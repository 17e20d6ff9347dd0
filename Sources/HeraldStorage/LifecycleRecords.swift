import Foundation
import HeraldCore

/// A local notification held for a device that had no channel when it fired.
public struct InboxItem: Hashable, Sendable {
    /// The firing it holds (its fire-log row): an inbox holds each firing once.
    public var logID: Int64?
    public var occurrence: Occurrence
    public var content: NotificationContent
    /// The content as the fire log stores it, when the item comes from a firing: the store
    /// copies these bytes instead of encoding ``content`` again.
    public var storedContent: String?
    public var firedAt: Date
    /// Its place in the device's inbox, once stored: what an acknowledgement names.
    public var sequence: Int64?

    public init(logID: Int64? = nil, occurrence: Occurrence, content: NotificationContent, storedContent: String? = nil,
                firedAt: Date, sequence: Int64? = nil) {
        self.logID = logID
        self.sequence = sequence
        self.occurrence = occurrence
        self.content = content
        self.storedContent = storedContent
        self.firedAt = firedAt
    }
}

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

/// What one acknowledgement removed.
public struct Acknowledgement: Hashable, Sendable {
    /// Inbox items removed.
    public var inboxItems: Int
    /// Whether it acknowledged the backlog hand-over.
    public var backlog: Bool

    public init(inboxItems: Int, backlog: Bool) {
        self.inboxItems = inboxItems
        self.backlog = backlog
    }
}

/// What happened to a batch of reported events.
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

public struct EventIngestion: Sendable {
    public var device: Device
    /// Events handed over live, in order; empty when the device is asleep or not streaming.
    public var live: [SystemEvent]
    /// The sequence id they were handed over under: word of it goes to the device's streams.
    public var liveSequence: Int64?
    /// How many were queued for the next wake.
    public var queued: Int
    /// The net change now waiting (a backlog that cancelled out counts as nothing).
    public var backlog: Int

    public init(device: Device, live: [SystemEvent], liveSequence: Int64? = nil, queued: Int, backlog: Int) {
        self.device = device
        self.live = live
        self.liveSequence = liveSequence
        self.queued = queued
        self.backlog = backlog
    }
}
