/// Runs `body` for each of `items` (with its index), at most `width` at a time: how tests load a
/// server with many requests without opening thousands of connections at once. The first error
/// stops the rest and is rethrown.
public func forEach<Item: Sendable>(_ items: [Item], concurrently width: Int,
                                    _ body: @escaping @Sendable (Int, Item) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        func add() {
            guard next < items.count else { return }
            let (index, item) = (next, items[next])
            next += 1
            group.addTask { try await body(index, item) }
        }
        for _ in 0..<width { add() }
        while try await group.next() != nil { add() }
    }
}
