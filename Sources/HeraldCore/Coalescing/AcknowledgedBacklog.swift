/// A device's coalesced backlog, handed over until the client acknowledges it.
///
/// Two queues fold every event: ``queue`` is the state as if each hand-over had reached the
/// client, and ``unacknowledged``, while a hand-over waits for its acknowledgement, the state as
/// if it had not (the backlog before it, with everything since folded in as well). Handing over
/// again before an acknowledgement delivers from ``unacknowledged``: the net change since the
/// last acknowledged hand-over, merged with what came since by each kind's own rule. An
/// acknowledgement keeps ``queue`` and forgets the other. Both are bounded like any queue.
///
/// ```swift
/// var backlog = AcknowledgedBacklog()
/// try backlog.ingest(SystemEvent(kind: "orientation", value: "landscape"), catalog: catalog)
/// let first = backlog.handOver(catalog: catalog, sequence: 7)   // landscape, seq 7
/// let again = backlog.handOver(catalog: catalog, sequence: 8)   // landscape again: 7 was not acknowledged
/// backlog.acknowledge(upTo: 8)                                  // now nothing is pending
/// ```
public struct AcknowledgedBacklog: Hashable, Sendable {
    /// The state once every hand-over so far is received.
    public private(set) var queue: DeviceEventQueue
    /// The state as of the last acknowledged hand-over, with every event since; nil when no
    /// hand-over waits.
    public private(set) var unacknowledged: DeviceEventQueue?
    /// The sequence id of the hand-over waiting for its acknowledgement.
    public private(set) var handedSequence: Int64?

    public init(queue: DeviceEventQueue = DeviceEventQueue(), unacknowledged: DeviceEventQueue? = nil,
                handedSequence: Int64? = nil) {
        self.queue = queue
        self.unacknowledged = handedSequence == nil ? nil : unacknowledged
        self.handedSequence = unacknowledged == nil ? nil : handedSequence
    }

    /// What a hand-over now would deliver.
    public func preview(catalog: EventCatalog) -> [CoalescedNotification] {
        (unacknowledged ?? queue).preview(catalog: catalog)
    }

    /// How many notifications a hand-over now would deliver.
    public var pendingCount: Int { (unacknowledged ?? queue).pendingCount }

    /// ``pendingCount`` by kind.
    public var pendingByKind: [String: Int] { (unacknowledged ?? queue).pendingByKind }

    /// Folds an event into both states.
    ///
    /// - Throws: whatever ``DeviceEventQueue/ingest(_:catalog:)`` refuses, for either state;
    ///   the backlog is then unchanged.
    public mutating func ingest(_ event: SystemEvent, catalog: EventCatalog) throws(HeraldError) {
        try applyToBoth { (queue: inout DeviceEventQueue) throws(HeraldError) in try queue.ingest(event, catalog: catalog) }
    }

    /// Records an event the client received live, in both states.
    ///
    /// - Throws: whatever ``DeviceEventQueue/deliveredLive(_:catalog:)`` refuses; the backlog
    ///   is then unchanged.
    public mutating func deliveredLive(_ event: SystemEvent, catalog: EventCatalog) throws(HeraldError) {
        try applyToBoth { (queue: inout DeviceEventQueue) throws(HeraldError) in try queue.deliveredLive(event, catalog: catalog) }
    }

    /// Applies `change` to both states, or to neither when it refuses either.
    private mutating func applyToBoth(_ change: (inout DeviceEventQueue) throws(HeraldError) -> Void) throws(HeraldError) {
        var queue = self.queue
        try change(&queue)
        if var waiting = unacknowledged {
            try change(&waiting)
            unacknowledged = waiting
        }
        self.queue = queue
    }

    /// Hands the backlog over: the net change since the last acknowledged hand-over.
    ///
    /// A value-like kind (latest, connection) that changed relative to what the unacknowledged
    /// hand-over sent is included too, with its current value: a client that did receive that
    /// hand-over must not be left holding a value that has since gone back. Nothing to hand over
    /// gives an empty batch and no sequence id; otherwise the batch waits under `sequence`.
    public mutating func handOver(catalog: EventCatalog, sequence: @autoclosure () throws -> Int64) rethrows
        -> (batch: [CoalescedNotification], sequence: Int64?) {
        var sinceAcknowledged = unacknowledged ?? queue
        let before = sinceAcknowledged
        var batch = sinceAcknowledged.drain(catalog: catalog)
        if unacknowledged != nil {
            // The value-like changes measured against what the last hand-over sent.
            var sinceHanded = queue
            let changed = sinceHanded.drain(catalog: catalog)
            let present = Set(batch.map { SlotName(kind: $0.kind, key: $0.key) })
            let missing = changed.filter { notification in
                catalog.rule(for: notification.kind)?.remembersDeliveredValue == true
                    && !present.contains(SlotName(kind: notification.kind, key: notification.key))
            }
            if !missing.isEmpty { batch = Self.ordered(batch + missing, catalog: catalog) }
        }
        queue = sinceAcknowledged
        guard !batch.isEmpty else {
            unacknowledged = nil
            handedSequence = nil
            return ([], nil)
        }
        let id = try sequence()
        unacknowledged = before
        handedSequence = id
        return (batch, id)
    }

    /// Acknowledges every hand-over with a sequence id up to `upTo`. Returns whether one was.
    @discardableResult
    public mutating func acknowledge(upTo: Int64) -> Bool {
        guard let handed = handedSequence, handed <= upTo else { return false }
        unacknowledged = nil
        handedSequence = nil
        return true
    }

    private struct SlotName: Hashable {
        var kind: String
        var key: String?
    }

    /// The order a drain delivers in: kind order, then key ascending.
    private static func ordered(_ batch: [CoalescedNotification], catalog: EventCatalog) -> [CoalescedNotification] {
        batch.sorted { lhs, rhs in
            let left = catalog.position(of: lhs.kind) ?? .max, right = catalog.position(of: rhs.kind) ?? .max
            return left != right ? left < right : DeviceEventQueue.keyPrecedes(lhs.key, rhs.key)
        }
    }
}
