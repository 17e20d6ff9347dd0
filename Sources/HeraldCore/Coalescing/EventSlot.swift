/// What a queue keeps for one kind and key: the value the client last received, and the
/// folded backlog since the last drain. One slot replaces any number of raw events.
struct EventSlot: Hashable, Sendable {
    /// The folded form of the events since the last drain; its shape follows the kind's rule.
    enum Backlog: Hashable, Sendable {
        /// `latest` and `connection`: only the final value matters.
        case latest(JSONValue)
        /// `occurrence`: only the count matters.
        case occurred
        case sum(Double)
        case union(Set<String>)
        /// `toggle`: only the parity of the count matters.
        case toggle

        func fits(_ rule: CoalescingRule) -> Bool {
            switch (self, rule) {
            case (.latest, .latest), (.latest, .connection), (.occurred, .occurrence), (.sum, .sum),
                 (.union, .union), (.toggle, .toggle):
                return true
            default:
                return false
            }
        }
    }

    /// What a key never delivered counts as for `connection` kinds.
    static let disconnected = JSONValue.string("disconnected")

    /// The value last delivered, for rules that measure against it (`latest`, `connection`).
    var delivered: JSONValue?
    var backlog: Backlog?
    /// Raw events folded into `backlog`.
    var count = 0
    /// The queue's delivery clock when `delivered` was last set: a full kind forgets the key
    /// delivered longest ago first, the one least likely to matter.
    var deliveredAt: UInt64 = 0

    /// Whether there is anything since the last drain.
    var isPending: Bool { backlog != nil }

    /// The slot with one more (validated, canonical) event folded in. It does not change `self`,
    /// so that a refused event leaves the queue as it was.
    ///
    /// - Throws: `tooManyUnionMembers` or `eventSumOverflow`.
    func folding(_ event: SystemEvent, rule: CoalescingRule) throws(HeraldError) -> EventSlot {
        var next = self
        // A backlog of another shape means the app changed the kind's rule; it cannot be folded
        // into the new rule, so it starts over.
        let previous = backlog.flatMap { $0.fits(rule) ? $0 : nil }
        if previous == nil { next.count = 0 }
        switch rule {
        case .latest:
            next.backlog = .latest(event.value ?? .null)
        case .connection:
            if next.delivered == nil { next.delivered = Self.disconnected }
            next.backlog = .latest(event.value ?? Self.disconnected)
        case .occurrence:
            next.backlog = .occurred
        case .sum:
            guard case .number(let amount)? = event.value else { break }
            var total = amount
            if case .sum(let sum)? = previous { total += sum }
            guard total.isFinite else {
                throw .invalid(.eventSumOverflow, "the pending sum of '\(event.kind)' would overflow")
            }
            next.backlog = .sum(total)
        case .union:
            var members: Set<String> = []
            if case .union(let existing)? = previous { members = existing }
            if case .array(let items)? = event.value {
                for case .string(let member) in items { members.insert(member) }
            }
            guard members.count <= DeviceEventQueue.maximumUnionMembers else {
                throw .invalid(.tooManyUnionMembers,
                               "the pending set of '\(event.kind)' would exceed \(DeviceEventQueue.maximumUnionMembers) members")
            }
            next.backlog = .union(members)
        case .toggle:
            next.backlog = .toggle
        }
        next.count = next.count == .max ? .max : next.count + 1
        return next
    }

    /// The net change since the client last received this kind and key, or nil when the backlog
    /// adds up to nothing.
    func notification(kind: String, key: String?) -> CoalescedNotification? {
        let value: JSONValue?
        switch backlog {
        case nil:
            return nil
        case .latest(let latest)?:
            guard latest != delivered else { return nil }
            value = latest
        case .occurred?:
            value = nil
        case .sum(let total)?:
            guard total != 0 else { return nil }
            value = .number(total)
        case .union(let members)?:
            guard !members.isEmpty else { return nil }
            value = .array(members.sorted().map(JSONValue.string))
        case .toggle?:
            guard count % 2 == 1 else { return nil }
            value = nil
        }
        return CoalescedNotification(kind: kind, key: key, value: value, count: count)
    }

    /// What the slot keeps once its backlog was delivered, or nil when nothing is worth keeping:
    /// only `latest`-like rules remember, and a connection key back at "disconnected" is the
    /// same as a key never seen.
    func memoryAfterDelivery(rule: CoalescingRule, clock: UInt64) -> EventSlot? {
        guard rule.remembersDeliveredValue else { return nil }
        guard case .latest(let latest)? = backlog else {
            return Self.memory(delivered, rule: rule, clock: deliveredAt)
        }
        return Self.memory(latest, rule: rule, clock: clock)
    }

    /// A slot that only remembers `value`, or nil when remembering it is the same as forgetting.
    static func memory(_ value: JSONValue?, rule: CoalescingRule, clock: UInt64) -> EventSlot? {
        guard let value, !(rule == .connection && value == disconnected) else { return nil }
        return EventSlot(delivered: value, deliveredAt: clock)
    }
}
