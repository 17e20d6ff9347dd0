import Foundation
import HeraldCore
import HeraldStorage

/// The data sets the benchmarks run on: one app, devices `dev-0…`, and notifications spread
/// evenly over the devices (notification i goes to device i mod devices), half of them one-shots
/// and half repeating daily, so firing exercises both removal and advancing.
enum Fixtures {
    static let appID = "bench.app"
    static let timeZone = "Europe/Paris"
    static let chunkSize = 50_000

    static func deviceID(_ index: Int) -> String { "dev-\(index)" }

    /// Registers the app and its devices through the store, as the API would.
    static func register(_ store: any DeviceStore, devices: Int) async throws {
        _ = try await store.saveApp(App(id: appID))
        let now = Date()
        for index in 0..<devices {
            _ = try await store.saveDevice(Device(appID: appID, id: deviceID(index), timeZone: timeZone), now: now)
        }
    }

    /// Stores `count` pending notifications with `bulkInsert`, in large chunks; notification i
    /// fires at `fireAt(i)` (milliseconds since the epoch).
    static func insert(_ store: SQLiteStore, count: Int, devices: Int,
                       fireAt: (Int) -> Int64) async throws {
        try await insert(count: count, devices: devices, fireAt: fireAt, with: store.bulkInsert)
    }

    /// The same, through any backend's bulk insert. With `oneShots`, none repeats (every firing
    /// removes its notification); otherwise every other one repeats daily.
    static func insert(count: Int, devices: Int, oneShots: Bool = false, fireAt: (Int) -> Int64,
                       with bulkInsert: ([LocalNotification]) async throws -> Void) async throws {
        let perDevice = (count + devices - 1) / devices
        guard perDevice <= NotificationLimit.maximumPending else {
            throw OptionsError("\(count) notifications over \(devices) devices is more than \(NotificationLimit.maximumPending) per device")
        }
        let content = NotificationContent(alert: .init(title: "Bench", body: "hi"), sound: "default")
        var start = 0
        while start < count {
            let end = min(start + chunkSize, count)
            var chunk: [LocalNotification] = []
            chunk.reserveCapacity(end - start)
            for index in start..<end {
                let date = Date(millisecondsSince1970: fireAt(index))
                chunk.append(LocalNotification(
                    appID: appID, deviceID: deviceID(index % devices), id: "n\(index / devices)",
                    fireDate: .instant(date), timeZone: .absolute,
                    repeatRule: oneShots || index % 2 == 0 ? nil : RepeatRule(unit: .day),
                    content: content, nextIndex: 0, nextFireDate: date))
            }
            try await bulkInsert(chunk)
            start = end
        }
    }

    /// A store in `directory` holding `count` notifications over `devices` devices.
    static func prepare(in directory: String, count: Int, devices: Int,
                        fireAt: (Int) -> Int64) async throws -> SQLiteStore {
        let store = try SQLiteStore(directory: directory)
        try await register(store, devices: devices)
        try await insert(store, count: count, devices: devices, fireAt: fireAt)
        return store
    }

    /// A store in `directory` holding `count` one-shot notifications over `devices` devices
    /// (no token, and an app without push settings: every firing goes to the inbox), its
    /// connections counted by `writeCounter` when one is given.
    static func prepareOneShots(in directory: String, count: Int, devices: Int, writeCounter: SQLiteWriteCounter? = nil,
                                fireAt: (Int) -> Int64) async throws -> SQLiteStore {
        let store = try SQLiteStore(directory: directory, writeCounter: writeCounter)
        try await register(store, devices: devices)
        try await insert(count: count, devices: devices, oneShots: true, fireAt: fireAt, with: store.bulkInsert)
        return store
    }

    /// The database file a store opened on `directory` uses.
    static func databasePath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent("herald.sqlite")
    }
}
