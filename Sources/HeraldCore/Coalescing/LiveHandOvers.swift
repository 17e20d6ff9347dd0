/// Events handed over live to a device's streams, kept until the client acknowledges them.
///
/// Reported events for a device streaming live are handed over at once, under a sequence id
/// drawn from the series its inbox items use, and kept here; word that they wait goes to every
/// stream of the device, on whichever node, and each stream reads what is above its own cursor,
/// in order with the inbox. Word can be lost (a listener reconnecting); the events cannot: a
/// stream reads them at its next word, and an acknowledgement removes them. So an id a client
/// acknowledges covers only events its stream wrote, whichever node took the report.
///
/// The backlog remembers them too (``AcknowledgedBacklog/handOverLive(_:catalog:sequence:)``):
/// a wake before the acknowledgement hands their net change over again.
///
/// ```swift
/// var live = LiveHandOvers()
/// live.append([SystemEvent(kind: "orientation", value: "portrait")], sequence: 41)
/// let unread = live.after(40)            // the batch with id 41; missed: false
/// live.acknowledge(upTo: 41)             // the client has them
/// ```
public struct LiveHandOvers: Hashable, Sendable, Codable {
    /// At most this many events are kept: a device whose client never acknowledges does not
    /// grow them without bound. The oldest batches beyond it are forgotten (their net change
    /// stays in the backlog), and a stream that had not read them ends, so its client wakes
    /// and receives that net change.
    public static let limit = 256

    /// One hand-over: the events one report brought, in order.
    public struct Batch: Hashable, Sendable, Codable {
        public var sequence: Int64
        public var events: [SystemEvent]

        public init(sequence: Int64, events: [SystemEvent]) {
            self.sequence = sequence
            self.events = events
        }
    }

    /// The unacknowledged batches, by increasing sequence id.
    public private(set) var batches: [Batch] = []
    /// The highest id of a batch forgotten unacknowledged, if any.
    public private(set) var forgottenThrough: Int64?

    public init() {}

    public var isEmpty: Bool { batches.isEmpty }

    /// Keeps a hand-over; forgets the oldest batches beyond ``limit`` events (never the new one).
    public mutating func append(_ events: [SystemEvent], sequence: Int64) {
        batches.append(Batch(sequence: sequence, events: events))
        var count = batches.reduce(0) { $0 + $1.events.count }
        while count > Self.limit, batches.count > 1 {
            let oldest = batches.removeFirst()
            count -= oldest.events.count
            forgottenThrough = max(forgottenThrough ?? oldest.sequence, oldest.sequence)
        }
    }

    /// The batches above `cursor`, and whether any batch above it was forgotten: a stream at
    /// that cursor has missed events and must end.
    public func after(_ cursor: Int64) -> (batches: [Batch], missed: Bool) {
        (batches.filter { $0.sequence > cursor }, (forgottenThrough ?? .min) > cursor)
    }

    /// Removes the batches up to and including `upTo`.
    public mutating func acknowledge(upTo: Int64) {
        batches.removeAll { $0.sequence <= upTo }
        if let forgotten = forgottenThrough, forgotten <= upTo { forgottenThrough = nil }
    }
}

extension AcknowledgedBacklog {
    /// Hands events over live under `sequence`: ``queue`` counts them as received (a later
    /// backlog is measured against them), ``unacknowledged`` keeps them pending, so a wake
    /// before the client acknowledges `sequence` hands their net change over again, merged by
    /// each kind's rule with the rest of the backlog.
    ///
    /// Best effort per event, as for any live delivery: an event the catalog refuses a slot (a
    /// kind with no room for another key) is not remembered; the event itself is still sent.
    public mutating func handOverLive(_ events: [SystemEvent], catalog: EventCatalog, sequence: Int64) {
        var waiting = unacknowledged ?? queue
        var received = queue
        for event in events {
            try? waiting.ingest(event, catalog: catalog)
            try? received.deliveredLive(event, catalog: catalog)
        }
        self = AcknowledgedBacklog(queue: received, unacknowledged: waiting, handedSequence: sequence)
    }
}
