/// How the events of one kind (and key) fold into the single notification a waking client gets.
///
/// Each rule answers "what is the net change since the client last received this kind?", so a
/// queue only ever needs one slot per kind and key, however many events arrive.
public enum CoalescingRule: String, Codable, Sendable, CaseIterable {
    /// The last value wins, and nothing is delivered when it equals the value last delivered:
    /// the client already holds that state.
    case latest
    /// `latest` for connect/disconnect kinds, where a key never delivered counts as
    /// `"disconnected"`, so a connect followed by a disconnect cancels out.
    case connection
    /// Valueless kinds: one notification if any occurred, whose count says how many.
    case occurrence
    /// A counter: the sum of the values since the last delivery; nothing when it is zero.
    case sum
    /// A set: the union of the strings since the last delivery, sorted; nothing when empty.
    case union
    /// Each event flips a state, so pairs cancel: delivered only after an odd number of events.
    case toggle

    /// Rules that remember the last delivered value, against which the next backlog is measured.
    var remembersDeliveredValue: Bool { self == .latest || self == .connection }
}
