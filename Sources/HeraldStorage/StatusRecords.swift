import Foundation
import HeraldCore

/// Whole-store counts behind the gauges on `/metrics`, read at each scrape.
public struct StoreGauges: Hashable, Sendable {
    /// Local notifications with an occurrence still to fire.
    public var pendingNotifications = 0
    /// Firings in the fire log without an outcome yet (fired, not yet delivered).
    public var fireLogBacklog = 0
    /// Feedback outbox messages waiting for a (next) delivery attempt.
    public var outboxPending = 0
    /// Feedback outbox messages that used up their attempts.
    public var outboxParked = 0

    public init() {}
}

/// One app on the status page.
public struct AppStatus: Hashable, Sendable {
    public var appID: String
    public var devices: Int
    public var pendingNotifications: Int
    public var invalidTokens: Int

    public init(appID: String, devices: Int, pendingNotifications: Int, invalidTokens: Int) {
        self.appID = appID
        self.devices = devices
        self.pendingNotifications = pendingNotifications
        self.invalidTokens = invalidTokens
    }
}

/// One device in its app's list on the status page.
public struct DeviceStatus: Hashable, Sendable {
    public var device: Device
    public var pendingNotifications: Int
    /// Local notifications held for it (fired while it had no channel).
    public var inbox: Int
    /// Coalesced notifications a wake would hand over now.
    public var eventBacklog: Int

    public init(device: Device, pendingNotifications: Int, inbox: Int, eventBacklog: Int) {
        self.device = device
        self.pendingNotifications = pendingNotifications
        self.inbox = inbox
        self.eventBacklog = eventBacklog
    }
}

/// One item held in a device's inbox, as the status page lists it.
public struct InboxListing: Hashable, Sendable {
    public var sequence: Int64
    public var notificationID: String
    public var occurrenceID: String
    public var firedAt: Date

    public init(sequence: Int64, notificationID: String, occurrenceID: String, firedAt: Date) {
        self.sequence = sequence
        self.notificationID = notificationID
        self.occurrenceID = occurrenceID
        self.firedAt = firedAt
    }
}

extension AcknowledgedBacklog {
    /// A device's backlog from its stored columns (JSON text of each queue).
    public init(storedQueue: String?, unacknowledged: String?, handedSequence: Int64?) throws {
        func queue(_ text: String?) throws -> DeviceEventQueue? {
            try text.map { try JSONDecoder().decode(DeviceEventQueue.self, from: Data($0.utf8)) }
        }
        self.init(queue: try queue(storedQueue) ?? DeviceEventQueue(), unacknowledged: try queue(unacknowledged),
                  handedSequence: handedSequence)
    }
}
