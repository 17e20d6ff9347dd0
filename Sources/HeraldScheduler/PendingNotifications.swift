import Foundation
import HeraldCore
import HeraldStorage

/// A device's pending notifications and its fire log, as clients read and cancel them. A
/// cancel needs no word to the timer: an entry whose notification is gone claims nothing.
public struct PendingNotifications: Sendable {
    private let store: any DeviceStore & ListingStore

    public init(store: any DeviceStore & ListingStore) {
        self.store = store
    }

    /// The device's pending notifications, soonest first (ties in the order they were scheduled).
    public func all(of device: Device) async throws -> [LocalNotification] {
        try await store.notifications(appID: device.appID, deviceID: device.id)
    }

    /// One pending notification; nil when the device has none of that id.
    public func notification(_ id: String, of device: Device) async throws -> LocalNotification? {
        try await store.notification(appID: device.appID, deviceID: device.id, id: id)
    }

    /// Cancels one notification. Returns false when the device had none of that id.
    public func cancel(_ id: String, of device: Device) async throws -> Bool {
        try await store.cancel(appID: device.appID, deviceID: device.id, id: id)
    }

    /// Cancels every pending notification of the device. Returns how many there were.
    public func cancelAll(of device: Device) async throws -> Int {
        try await store.cancelAll(appID: device.appID, deviceID: device.id)
    }

    /// The device's deliveries older than the one keyed `before` (newest first), at most `limit`.
    public func deliveries(of device: Device, before: String?, limit: Int) async throws -> ListPage<Delivery> {
        try await store.deliveries(appID: device.appID, deviceID: device.id, before: before, limit: limit)
    }
}
