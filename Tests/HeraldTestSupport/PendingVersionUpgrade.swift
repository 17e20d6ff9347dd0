import Foundation
import HeraldCore
import HeraldStorage
import Testing

/// What both backends' pending-version migration tests store in the previous schema and expect
/// after the upgrade: an app, devices d0 and d1, and three notifications whose keys interleave
/// (d0's stored before and after d1's): a one-shot, a daily series already advanced once and
/// replaced once, and a floating one.
public enum PendingVersionUpgrade {
    /// 2030-01-01T00:00:00Z.
    public static let start = Date(timeIntervalSince1970: 1_893_456_000)
    static let fixtures = StoreFixtures(app: "app", start: start)

    /// The rows' notifications as the store reads them back.
    public static let a = LocalNotification(appID: "app", deviceID: "d0", id: "a", fireDate: .instant(start + 60),
                                            timeZone: .absolute, repeatRule: nil,
                                            content: NotificationContent(alert: .init(body: "a")),
                                            nextIndex: 0, nextFireDate: start + 60)
    public static let b = LocalNotification(appID: "app", deviceID: "d0", id: "b", fireDate: .instant(start + 8 * 3600),
                                            timeZone: .fixed("Europe/Paris"), repeatRule: RepeatRule(unit: .day, end: .count(3)),
                                            content: NotificationContent(alert: .init(body: "b")),
                                            nextIndex: 1, nextFireDate: start + 32 * 3600)
    public static let c = LocalNotification(appID: "app", deviceID: "d1", id: "c",
                                            fireDate: .wallClock(LocalDateTime(parsing: "2030-01-02T09:00:00")!),
                                            timeZone: .floating, repeatRule: nil,
                                            content: NotificationContent(alert: .init(body: "c")),
                                            nextIndex: 0, nextFireDate: start + 33 * 3600)

    /// Checks an upgraded store: everything is there, each device's version starts at 0, and a
    /// new schedule and a replace each move only their device's version.
    public static func expectUpgraded(_ store: any HeraldStore) async throws {
        #expect(try await store.notifications(appID: "app", deviceID: "d0") == [a, b])
        #expect(try await store.notifications(appID: "app", deviceID: "d1") == [c])
        let d0 = try await store.scheduleSnapshot(appID: "app", deviceID: "d0")
        #expect(d0.version == 0)
        #expect(d0.pending.map(\.id) == ["a", "b"])
        #expect(d0.pending.map(\.nextFireDate) == [a.nextFireDate, b.nextFireDate])
        let d1 = try await store.scheduleSnapshot(appID: "app", deviceID: "d1")
        #expect(d1.version == 0)
        #expect(d1.pending.map(\.id) == ["c"])

        // A new notification beside the migrated ones moves only its device's version.
        let e = fixtures.oneShot("e", device: "d0", at: 120)
        let added = try await store.schedule(e, now: start)
        #expect(added.armed != nil && !added.replaced && added.evicted.isEmpty)
        let d0After = try await store.scheduleSnapshot(appID: "app", deviceID: "d0")
        #expect(d0After.version == 1)
        #expect(d0After.pending.map(\.id) == ["a", "b", "e"])
        #expect(try await store.scheduleSnapshot(appID: "app", deviceID: "d1").version == 0)

        // Replacing a migrated notification moves its device's version too.
        let replacement = fixtures.oneShot("c", device: "d1", at: 180)
        let replaced = try await store.schedule(replacement, now: start)
        #expect(replaced.armed != nil && replaced.replaced && replaced.evicted.isEmpty)
        let d1After = try await store.scheduleSnapshot(appID: "app", deviceID: "d1")
        #expect(d1After.version == 1)
        #expect(d1After.pending.map(\.id) == ["c"])
        #expect(try await store.notifications(appID: "app", deviceID: "d1") == [replacement])
        #expect(try await store.notifications(appID: "app", deviceID: "d0") == [a, e, b])
    }
}
