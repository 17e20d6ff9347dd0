import Synchronization

/// The notifications each device token has received, safe to use from every request task.
/// Each inbox keeps at most `capacity` entries, dropping the oldest, so a long-running sandbox
/// under load does not grow without bound.
final class DeviceInboxes: Sendable {
    private let entries = Mutex<[String: [InboxEntry]]>([:])
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
    }

    func clear(token: String) {
        _ = entries.withLock { $0.removeValue(forKey: token.lowercased()) }
    }
}
