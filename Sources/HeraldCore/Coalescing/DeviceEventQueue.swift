/// The coalesced backlog of one asleep device, plus the memory of what its client last received.
///
/// Events for an asleep device are folded in as they come (`ingest`); on wake, `drain` hands
/// back one notification per kind and key carrying the net change. Memory is one slot per kind
/// and key, never per event, so a device that sleeps for a month costs what it cost after a
/// minute. It is a plain value, stored as JSON per device; every change is a pure function of
/// the queue, the event and the app's catalog.
public struct DeviceEventQueue: Hashable, Sendable, Codable {
    /// Keys one kind may hold (accessories, screens, settings, keyed custom kinds).
    public static let maximumKeysPerKind = 256
    /// Members a union kind's pending set may hold.
    public static let maximumUnionMembers = 1024

    /// Slots by kind, then by key (nil for kinds without keys).
    private var slots: [String: [String?: EventSlot]] = [:]
    /// A logical clock that ticks at each drain and live delivery, to find the key delivered
    /// longest ago; it orders deliveries, so it needs no wall time.
    private var clock: UInt64 = 0

    public init() {}

    /// True when a drain would deliver nothing: no backlog, or one that adds up to no change.
    public var isEmpty: Bool {
        !slots.contains { kind, keyed in keyed.contains { $0.value.notification(kind: kind, key: $0.key) != nil } }
    }

    /// How many notifications a drain would deliver now (kinds the catalog no longer knows
    /// included; a drain drops those).
    public var pendingCount: Int {
        pendingByKind.values.reduce(0, +)
    }

    /// ``pendingCount`` by kind: what a status page and the backlog gauge show.
    public var pendingByKind: [String: Int] {
        var counts: [String: Int] = [:]
        for (kind, keyed) in slots {
            let pending = keyed.reduce(0) { $0 + ($1.value.notification(kind: kind, key: $1.key) == nil ? 0 : 1) }
            if pending > 0 { counts[kind] = pending }
        }
        return counts
    }

    /// Raw events queued since the last drain, including those that cancel out.
    public var pendingEventCount: Int {
        slots.values.reduce(0) { total, keyed in keyed.values.reduce(total) { $0 + $1.count } }
    }

    /// Stored slots (backlog and delivered memory together): bounded by kinds × keys per kind,
    /// never by the number of events.
    public var slotCount: Int {
        slots.values.reduce(0) { $0 + $1.count }
    }

    /// Folds one event into the backlog.
    ///
    /// - Throws: whatever `EventCatalog.validate` refuses, `tooManyEventKeys` when the kind
    ///   already has `maximumKeysPerKind` keys with a backlog, `tooManyUnionMembers` or
    ///   `eventSumOverflow`. A refused event changes nothing.
    public mutating func ingest(_ event: SystemEvent, catalog: EventCatalog) throws(HeraldError) {
        let (event, entry) = try catalog.validated(event)
        let existing = slots[event.kind]?[event.key]
        let slot = try (existing ?? EventSlot()).folding(event, rule: entry.rule)
        if existing == nil {
            guard makeRoom(in: event.kind) else {
                throw .invalid(.tooManyEventKeys,
                               "'\(event.kind)' already has \(Self.maximumKeysPerKind) keys waiting to be delivered")
            }
        }
        slots[event.kind, default: [:]][event.key] = slot
    }

    /// The batch a drain would deliver, without delivering it.
    public func preview(catalog: EventCatalog) -> [CoalescedNotification] {
        settled(catalog: catalog, clock: clock &+ 1).batch
    }

    /// Delivers the backlog: the net change since the client last received each kind and key,
    /// in kind order (`EventCatalog.kindOrder`) then key ascending, with kinds without keys first.
    ///
    /// Afterwards the backlog is empty and what was delivered becomes the value later backlogs
    /// are measured against. Slots of kinds the catalog no longer knows (a custom kind the app
    /// dropped) are discarded.
    public mutating func drain(catalog: EventCatalog) -> [CoalescedNotification] {
        // Only a delivery ticks the clock, so draining an idle queue leaves it unchanged.
        if slots.values.contains(where: { $0.values.contains(where: \.isPending) }) { clock &+= 1 }
        let (batch, memory) = settled(catalog: catalog, clock: clock)
        slots = memory
        return batch
    }

    /// Records that an awake client received `event` live, so a later backlog is measured
    /// against it. For `latest`-like kinds it also supersedes any backlog of that kind and key,
    /// which is older than what the client now holds; other rules keep their backlog, as the
    /// live event did not include it.
    ///
    /// Remembering is best effort: when the kind has no room for another key it is not recorded,
    /// which can only cause one redundant notification later, never a lost one.
    ///
    /// - Throws: whatever `EventCatalog.validate` refuses; the queue is then unchanged.
    public mutating func deliveredLive(_ event: SystemEvent, catalog: EventCatalog) throws(HeraldError) {
        let (event, entry) = try catalog.validated(event)
        guard entry.rule.remembersDeliveredValue else { return }
        let memory = EventSlot.memory(event.value ?? .null, rule: entry.rule, clock: clock &+ 1)
        if slots[event.kind]?[event.key] == nil {
            guard memory != nil, makeRoom(in: event.kind) else { return }
        }
        clock &+= 1
        slots[event.kind, default: [:]][event.key] = memory
        if slots[event.kind]?.isEmpty == true { slots[event.kind] = nil }
    }

    /// Ensures the kind can take one more key, forgetting if needed the delivered memory of the
    /// key without a backlog that was delivered longest ago (ties: the smallest key). False when
    /// every key has a backlog: that is the bound, and the caller must refuse.
    private mutating func makeRoom(in kind: String) -> Bool {
        guard let keyed = slots[kind], keyed.count >= Self.maximumKeysPerKind else { return true }
        let forgettable = keyed.filter { !$0.value.isPending }.min { lhs, rhs in
            lhs.value.deliveredAt != rhs.value.deliveredAt
                ? lhs.value.deliveredAt < rhs.value.deliveredAt
                : Self.keyPrecedes(lhs.key, rhs.key)
        }
        guard let forgettable else { return false }
        slots[kind]?[forgettable.key] = nil
        return true
    }

    /// The batch to deliver and the slots left once it is delivered.
    private func settled(catalog: EventCatalog, clock: UInt64) -> (batch: [CoalescedNotification], memory: [String: [String?: EventSlot]]) {
        var batch: [CoalescedNotification] = []
        var memory: [String: [String?: EventSlot]] = [:]
        let kinds = slots.keys.compactMap { kind in catalog.position(of: kind).map { (kind, $0) } }
            .sorted { $0.1 < $1.1 }
        for (kind, _) in kinds {
            guard let keyed = slots[kind], let rule = catalog.rule(for: kind) else { continue }
            for key in keyed.keys.sorted(by: Self.keyPrecedes) {
                guard let slot = keyed[key] else { continue }
                if let notification = slot.notification(kind: kind, key: key) {
                    batch.append(notification)
                }
                if let kept = slot.memoryAfterDelivery(rule: rule, clock: clock) {
                    memory[kind, default: [:]][key] = kept
                }
            }
        }
        return (batch, memory)
    }

    /// Keys ascending, the absent key (kinds without keys) first.
    static func keyPrecedes(_ lhs: String?, _ rhs: String?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case let (lhs?, rhs?): return lhs < rhs
        }
    }

    // MARK: - JSON

    /// Bumped when the stored shape changes, so old rows can be migrated rather than misread.
    private static let formatVersion = 1

    private enum CodingKeys: String, CodingKey { case version, clock, slots }
    private enum SlotKeys: String, CodingKey { case kind, key, delivered, deliveredAt, count, backlog, value }
    private enum BacklogTag: String, Codable { case latest, occurred, sum, union, toggle }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == Self.formatVersion else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: container,
                                                   debugDescription: "unsupported event queue format \(version)")
        }
        clock = try container.decodeIfPresent(UInt64.self, forKey: .clock) ?? 0
        var list = try container.nestedUnkeyedContainer(forKey: .slots)
        while !list.isAtEnd {
            let record = try list.nestedContainer(keyedBy: SlotKeys.self)
            var slot = EventSlot()
            // Presence, not `decodeIfPresent`: a delivered or latest `null` is a real value.
            if record.contains(.delivered) {
                slot.delivered = try record.decode(JSONValue.self, forKey: .delivered)
                slot.deliveredAt = try record.decodeIfPresent(UInt64.self, forKey: .deliveredAt) ?? 0
            }
            if let tag = try record.decodeIfPresent(BacklogTag.self, forKey: .backlog) {
                switch tag {
                case .latest: slot.backlog = .latest(try record.decode(JSONValue.self, forKey: .value))
                case .occurred: slot.backlog = .occurred
                case .sum: slot.backlog = .sum(try record.decode(Double.self, forKey: .value))
                case .union: slot.backlog = .union(Set(try record.decode([String].self, forKey: .value)))
                case .toggle: slot.backlog = .toggle
                }
                slot.count = try record.decode(Int.self, forKey: .count)
                guard slot.count >= 1 else {
                    throw DecodingError.dataCorruptedError(forKey: .count, in: record,
                                                           debugDescription: "a backlog stands for at least one event")
                }
            }
            let kind = try record.decode(String.self, forKey: .kind)
            let key = try record.decodeIfPresent(String.self, forKey: .key)
            slots[kind, default: [:]][key] = slot
        }
    }

    /// Slots are written sorted by kind then key, so equal queues encode to equal JSON.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .version)
        try container.encode(clock, forKey: .clock)
        var list = container.nestedUnkeyedContainer(forKey: .slots)
        for kind in slots.keys.sorted() {
            guard let keyed = slots[kind] else { continue }
            for key in keyed.keys.sorted(by: Self.keyPrecedes) {
                guard let slot = keyed[key] else { continue }
                var record = list.nestedContainer(keyedBy: SlotKeys.self)
                try record.encode(kind, forKey: .kind)
                try record.encodeIfPresent(key, forKey: .key)
                if let delivered = slot.delivered {
                    try record.encode(delivered, forKey: .delivered)
                    try record.encode(slot.deliveredAt, forKey: .deliveredAt)
                }
                guard let backlog = slot.backlog else { continue }
                try record.encode(slot.count, forKey: .count)
                switch backlog {
                case .latest(let value):
                    try record.encode(BacklogTag.latest, forKey: .backlog)
                    try record.encode(value, forKey: .value)
                case .occurred:
                    try record.encode(BacklogTag.occurred, forKey: .backlog)
                case .sum(let total):
                    try record.encode(BacklogTag.sum, forKey: .backlog)
                    try record.encode(total, forKey: .value)
                case .union(let members):
                    try record.encode(BacklogTag.union, forKey: .backlog)
                    try record.encode(members.sorted(), forKey: .value)
                case .toggle:
                    try record.encode(BacklogTag.toggle, forKey: .backlog)
                }
            }
        }
    }
}
