import Foundation
import HeraldCore

/// What the coalescer's use cases (HeraldCoalescer) read and write about one device: its
/// lifecycle state, its coalesced backlog, its live hand-overs, its wake pushes, and its inbox.
/// The use case decides in HeraldCore on what a store reads; each backend only says how it
/// reads and writes, in its own SQL.
///
/// A change is one transaction with the device's row locked: a wake on one node and events
/// reported through another apply one after the other, and a backlog is never handed over
/// twice.
public protocol CoalescerStore: Sendable {
    /// The device and its events, read at one instant, changing nothing.
    ///
    /// - Throws: ``HeraldError`` `deviceNotFound`, a ``StoreFault``.
    func deviceEvents(appID: String, deviceID: String) async throws -> DeviceEvents

    /// Reads the device's events with its row locked, lets `change` decide, and writes what it
    /// changed, in one transaction: the state, the events, the inbox acknowledgement it asks
    /// for, and the hand-over id if it drew it. Then reads the inbox back if it asked to.
    ///
    /// ```swift
    /// let written = try await store.changeDeviceEvents(appID: "app", deviceID: "d1") { update in
    ///     update.events.backlog.acknowledge(upTo: 12)
    ///     update.acknowledgeInbox(upTo: 12)
    /// }
    /// ```
    ///
    /// - Parameter change: the use case's decision. What it throws is thrown here, with nothing
    ///   written.
    /// - Throws: `deviceNotFound`, what `change` throws, a ``StoreFault``.
    func changeDeviceEvents<Outcome: Sendable>(
        appID: String, deviceID: String,
        _ change: @escaping @Sendable (inout DeviceEventsUpdate) throws -> Outcome
    ) async throws -> DeviceEventsWrite<Outcome>

    /// What the device was handed above sequence id `after` and has not acknowledged, inbox
    /// items (in id order) and live hand-overs, read from one snapshot: an id is committed
    /// before any higher id of its device is, so a reader sees a prefix without gaps.
    func handedOver(appID: String, deviceID: String, after: Int64) async throws -> (inbox: [InboxItem], live: LiveHandOvers)
}

/// A device's coalescer state, as stored.
public struct DeviceEvents: Hashable, Sendable {
    public var device: Device
    public var backlog: AcknowledgedBacklog
    public var live: LiveHandOvers
    /// When content-available wake pushes went out (milliseconds since the epoch), oldest first.
    public var wakePushes: [Int64]

    public init(device: Device, backlog: AcknowledgedBacklog = AcknowledgedBacklog(), live: LiveHandOvers = LiveHandOvers(),
                wakePushes: [Int64] = []) {
        self.device = device
        self.backlog = backlog
        self.live = live
        self.wakePushes = wakePushes
    }
}

/// One change to a device's events, as a use case makes it: the store writes what differs
/// from what it read.
public struct DeviceEventsUpdate: Sendable {
    /// What the store read; of the device, only a changed ``Device/state`` is written.
    public var events: DeviceEvents
    /// Inbox items with an id up to and including this are marked acknowledged.
    public private(set) var inboxAcknowledgedUpTo: Int64?
    /// The unacknowledged inbox is read back after the write (a wake hands it over).
    public private(set) var readsInbox = false
    /// An id of the hand-over series, drawn after the device's row was locked, so a device's ids
    /// commit in the order they were drawn (docs/hand-over-order.md).
    private let handOverID: Int64
    /// Whether the change took ``handOverID``: a store that can reserve it lazily (SQLite)
    /// reserves it only then.
    public private(set) var drewHandOverID = false
    /// The events as the store read them: what the change is measured against.
    private let read: DeviceEvents

    public init(events: DeviceEvents, handOverID: Int64) {
        self.events = events
        self.read = events
        self.handOverID = handOverID
    }

    /// The device's state to write; nil when the change left it as read.
    public var movedState: LifecycleState? {
        events.device.state != read.device.state ? events.device.state : nil
    }

    /// The backlog, live hand-overs and wake pushes to write, in their stored form; nil when the
    /// change left them as read.
    ///
    /// - Throws: `EncodingError` if a value cannot be written as JSON.
    public func changedEvents() throws -> StoredDeviceEvents? {
        guard events.backlog != read.backlog || events.live != read.live || events.wakePushes != read.wakePushes else {
            return nil
        }
        return try StoredDeviceEvents(events)
    }

    /// The hand-over id for this change.
    public mutating func drawHandOverID() -> Int64 {
        drewHandOverID = true
        return handOverID
    }

    public mutating func acknowledgeInbox(upTo: Int64) {
        inboxAcknowledgedUpTo = upTo
    }

    public mutating func readInbox() {
        readsInbox = true
    }
}

/// What a change wrote, and what it found.
public struct DeviceEventsWrite<Outcome: Sendable>: Sendable {
    public var outcome: Outcome
    /// The device's events as written.
    public var events: DeviceEvents
    /// How many inbox items the acknowledgement marked.
    public var inboxAcknowledged: Int
    /// The unacknowledged inbox after the write, in id order; empty unless the change asked.
    public var inbox: [InboxItem]

    public init(outcome: Outcome, events: DeviceEvents, inboxAcknowledged: Int, inbox: [InboxItem]) {
        self.outcome = outcome
        self.events = events
        self.inboxAcknowledged = inboxAcknowledged
        self.inbox = inbox
    }
}

/// The stored form of a device's events, the same on every backend: JSON text columns
/// (``DeviceJSON``).
public struct StoredDeviceEvents: Sendable {
    public var queue: String
    public var unacknowledged: String?
    public var handedSequence: Int64?
    public var live: String?
    public var wakePushes: String

    public init(_ events: DeviceEvents) throws {
        queue = try DeviceJSON.encode(events.backlog.queue) ?? "{}"
        unacknowledged = try DeviceJSON.encode(events.backlog.unacknowledged)
        handedSequence = events.backlog.handedSequence
        live = events.live == LiveHandOvers() ? nil : try DeviceJSON.encode(events.live)
        wakePushes = try DeviceJSON.encode(events.wakePushes) ?? "[]"
    }

    /// A device's events from its stored columns; a device without a row has none.
    public static func decode(device: Device, queue: String?, unacknowledged: String?, handedSequence: Int64?,
                              live: String?, wakePushes: String?) throws -> DeviceEvents {
        DeviceEvents(
            device: device,
            backlog: try AcknowledgedBacklog(storedQueue: queue, unacknowledged: unacknowledged,
                                             handedSequence: handedSequence),
            live: try liveHandOvers(stored: live),
            // A damaged list only loosens the throttle for an hour: it is not worth a failed call.
            wakePushes: (try? DeviceJSON.decode(wakePushes)) ?? [])
    }

    /// The live hand-overs from their stored column.
    public static func liveHandOvers(stored live: String?) throws -> LiveHandOvers {
        try DeviceJSON.decode(live) ?? LiveHandOvers()
    }
}
