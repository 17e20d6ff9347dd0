/// One page of a listing, in key order: `nextKey` is the last item's sort key when more may
/// follow (pass it back as `after`), nil on the last page.
///
/// Keyset pagination: a page starts after a key, never at an offset, so items created or
/// deleted between two pages neither repeat nor shift others out of the walk.
public struct ListPage<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextKey: String?

    public init(items: [Item], nextKey: String?) {
        self.items = items
        self.nextKey = nextKey
    }

    /// The page from rows fetched with `LIMIT limit + 1`: the extra row only says more follow.
    public init(fetched: [Item], limit: Int, key: (Item) -> String) {
        if fetched.count > limit {
            items = Array(fetched.prefix(limit))
            nextKey = items.last.map(key)
        } else {
            items = fetched
            nextKey = nil
        }
    }

    /// An integer row key back from a `nextKey`; anything else was not a key this list gave.
    public static func integerKey(_ text: String) throws(HeraldError) -> Int64 {
        guard let key = Int64(text) else { throw HeraldError.badRequest(.invalidCursor, "cursor is not one this list gave") }
        return key
    }
}
