import Synchronization

/// The notifications each device token has received, safe to use from every request task.
/// Each inbox keeps at most `capacity` entries, dropping the oldest, so a long-running sandbox
/// under load does not grow without bound.
final class DeviceInboxes: Sendable {
    private let entries = Mutex<[String: [InboxEntry]]>([:])
    /// Refused requests by the token in their path, lowercased: what a device did not receive.
    private let refused = Mutex<[String: Int]>([:])
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func append(_ entry: InboxEntry) {
        entries.withLock { entries in
            entries[entry.token, default: []].append(entry)
            if let count = entries[entry.token]?.count, count > capacity {
                entries[entry.token]?.removeFirst(count - capacity)
            }
        }
    }

    /// Oldest first; tokens compare case-insensitively.
    func inbox(token: String) -> [InboxEntry] {
        entries.withLock { $0[token.lowercased()] ?? [] }
    }

    func all() -> [String: [InboxEntry]] {
        entries.withLock { $0 }
    }

    func counts() -> [String: Int] {
        entries.withLock { $0.mapValues(\.count) }
    }

    func clear() {
        entries.withLock { $0.removeAll() }
        refused.withLock { $0.removeAll() }
    }

    /// Counts a refused request to `/3/device/<token>`.
    func noteRefusal(path: String) {
        let prefix = "/3/device/"
        let token = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
        refused.withLock { $0[token.lowercased(), default: 0] += 1 }
    }

    var totalRefusals: Int { refused.withLock { $0.values.reduce(0, +) } }

    /// How many requests to this token were refused; tokens compare case-insensitively.
    func refusals(token: String) -> Int {
        refused.withLock { $0[token.lowercased(), default: 0] }
    }

    func clear(token: String) {
        _ = entries.withLock { $0.removeValue(forKey: token.lowercased()) }
    }
}
