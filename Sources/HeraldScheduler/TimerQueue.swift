import HeraldStorage

/// A binary min-heap of timer entries, soonest first.
///
/// Entries are 16 bytes and nothing else about a notification is kept in memory, which is what
/// lets a node arm a million pending notifications in a few tens of megabytes. Entries are never
/// removed early: a cancelled or re-timed notification leaves a stale entry that is recognised
/// and dropped when it comes due.
struct TimerQueue {
    private var entries: [TimerEntry] = []

    var count: Int { entries.count }
    var first: TimerEntry? { entries.first }

    /// Replaces the contents with `newEntries` in linear time.
    mutating func load(_ newEntries: [TimerEntry]) {
        entries = newEntries
        guard entries.count > 1 else { return }
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) {
            siftDown(from: index)
        }
    }

    mutating func insert(_ entry: TimerEntry) {
        entries.append(entry)
        siftUp(from: entries.count - 1)
    }

    mutating func popFirst() -> TimerEntry? {
        guard !entries.isEmpty else { return nil }
        let first = entries[0]
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(from: 0)
        }
        return first
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        let entry = entries[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.fireAt < entries[parent].fireAt else { break }
            entries[child] = entries[parent]
            child = parent
        }
        entries[child] = entry
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let entry = entries[parent]
        let count = entries.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count, entries[child + 1].fireAt < entries[child].fireAt { child += 1 }
            guard entries[child].fireAt < entry.fireAt else { break }
            entries[parent] = entries[child]
            parent = child
        }
        entries[parent] = entry
    }
}
