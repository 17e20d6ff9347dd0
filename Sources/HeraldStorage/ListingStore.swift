import HeraldCore

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
