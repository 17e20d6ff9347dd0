/// One notification of a coalesced batch: the net change of one kind (and key) while the
/// client slept.
///
/// `count` is how many raw events it stands for: every event of that kind and key queued since
/// the previous drain, including those that cancelled each other out along the way (e.g. four
/// orientation changes ending in landscape give one notification with count 4). It lets a
/// client tell "changed once" from "flapped a lot" without receiving the flapping.
public struct CoalescedNotification: Hashable, Sendable, Codable {
    public var kind: String
    public var key: String?
    /// The net value; nil for kinds without one (significant time change, toggles), `.null` for
    /// a null value (a signed-out ubiquity identity).
    public var value: JSONValue?
    public var count: Int

    public init(kind: String, key: String? = nil, value: JSONValue? = nil, count: Int) {
        self.kind = kind
        self.key = key
        self.value = value
        self.count = count
    }

    /// The notification as the event a client would have received live.
    public var event: SystemEvent {
        SystemEvent(kind: kind, key: key, value: value)
    }

    private enum CodingKeys: String, CodingKey { case kind, key, value, count }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        key = try container.decodeIfPresent(String.self, forKey: .key)
        // A present `null` is a value; an absent key is none (see `SystemEvent`).
        value = container.contains(.value) ? try container.decode(JSONValue.self, forKey: .value) : nil
        count = try container.decode(Int.self, forKey: .count)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(key, forKey: .key)
        try container.encodeIfPresent(value, forKey: .value)
        try container.encode(count, forKey: .count)
    }
}
