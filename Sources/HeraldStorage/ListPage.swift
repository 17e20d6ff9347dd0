import HeraldCore

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

/// A hook's stored definition under its name, as listings return it.
public struct StoredHook: Sendable, Equatable {
    public var name: String
    /// The definition as JSON, as `HookStore.saveHook` stored it.
    public var definition: String

    public init(name: String, definition: String) {
        self.name = name
        self.definition = definition
    }
}

/// Which devices a device listing returns.
public struct DeviceFilter: Sendable, Equatable {
    public var platform: Platform?
    public var state: LifecycleState?

    public init(platform: Platform? = nil, state: LifecycleState? = nil) {
        self.platform = platform
        self.state = state
    }
}

/// The collections the API lists, a page at a time, in key order (ids and names in byte order,
/// deliveries newest first). Broadcast channels' audiences are not devices and are not listed.
public protocol ListingStore: Sendable {
    /// Apps with an id after `after` (all of them when nil), at most `limit`.
    func apps(after: String?, limit: Int) async throws -> ListPage<App>
    /// One app's devices with an id after `after` that pass `filter`, at most `limit`.
    func devices(appID: String, filter: DeviceFilter, after: String?, limit: Int) async throws -> ListPage<Device>
    /// Hooks with a name after `after`, at most `limit`.
    func hooks(after: String?, limit: Int) async throws -> ListPage<StoredHook>
    /// One device's deliveries older than the one keyed `before` (newest first), at most `limit`.
    func deliveries(appID: String, deviceID: String, before: String?, limit: Int) async throws -> ListPage<Delivery>
}
